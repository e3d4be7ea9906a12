import { pgliteBackend } from "@talkide/service-kit/testing";
import { defineRoutingSuite } from "./test-support/routing-suite.ts";

defineRoutingSuite(pgliteBackend());
