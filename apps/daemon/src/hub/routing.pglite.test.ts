import { pgliteBackend } from "../test-support/backends.ts";
import { defineRoutingSuite } from "./test-support/routing-suite.ts";

defineRoutingSuite(pgliteBackend());
