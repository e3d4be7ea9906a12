import { postgresBackend } from "../test-support/backends.ts";
import { defineSessionSuite } from "../test-support/session-suite.ts";

defineSessionSuite(postgresBackend());
