import { describeConcurrentMessages } from "../test-support/concurrency-suite.ts";

describeConcurrentMessages("split", "postgres");
