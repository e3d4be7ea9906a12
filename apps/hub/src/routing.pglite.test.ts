import { pgliteBackend } from "@talkide/daemon/testing";
import { defineRoutingSuite } from "./test-support/routing-suite.ts";

defineRoutingSuite(pgliteBackend());
