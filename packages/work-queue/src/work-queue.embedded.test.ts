import { describeQueue } from "./test-support/queue-suite.ts";

// The suite on PGlite; work-queue.server.test.ts runs it on a PostgreSQL server.
describeQueue("embedded");
