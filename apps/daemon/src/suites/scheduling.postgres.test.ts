import { postgresBackend } from "../test-support/backends.ts";
import { defineSchedulingSuite } from "../test-support/scheduling-suite.ts";

defineSchedulingSuite(postgresBackend());
