import { postgresBackend } from "@talkide/service-kit/testing";
import { defineCrashSuite } from "../test-support/crash-suite.ts";

defineCrashSuite(postgresBackend("The daemon's PostgreSQL server suites"));
