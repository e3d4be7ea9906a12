import { pgliteBackend } from "@talkide/service-kit/testing";
import { defineSessionSuite } from "../test-support/session-suite.ts";

defineSessionSuite(pgliteBackend());
