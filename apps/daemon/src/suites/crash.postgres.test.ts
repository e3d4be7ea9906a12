import { postgresBackend } from "../test-support/backends.ts";
import { defineCrashSuite } from "../test-support/crash-suite.ts";

defineCrashSuite(postgresBackend());
