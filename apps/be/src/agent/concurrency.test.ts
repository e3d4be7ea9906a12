import { describeConcurrentMessages } from "../test-support/concurrency-suite.ts";

describeConcurrentMessages("split", "embedded");
describeConcurrentMessages("single", "embedded");
