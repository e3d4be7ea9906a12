import { pgliteBackend } from "@talkide/service-kit/testing";
import { defineCrashSuite } from "../test-support/crash-suite.ts";

defineCrashSuite(pgliteBackend());
