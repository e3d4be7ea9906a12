import { postgresBackend } from "@talkide/daemon/testing";
import { defineRoutingSuite } from "./test-support/routing-suite.ts";

defineRoutingSuite(postgresBackend());
