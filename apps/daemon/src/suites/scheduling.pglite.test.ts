import { pgliteBackend } from "@talkide/service-kit/testing";
import { defineSchedulingSuite } from "../test-support/scheduling-suite.ts";

defineSchedulingSuite(pgliteBackend());
