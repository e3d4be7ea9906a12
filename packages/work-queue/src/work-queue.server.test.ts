import { describeQueue } from "./test-support/queue-suite.ts";

// The suite on a PostgreSQL server; work-queue.embedded.test.ts runs it on PGlite.
describeQueue("server");
