import { pgliteBackend } from "../test-support/backends.ts";
import { defineSessionSuite } from "../test-support/session-suite.ts";

defineSessionSuite(pgliteBackend());
