import { postgresBackend } from "@talkide/service-kit/testing";
import { defineSessionSuite } from "../test-support/session-suite.ts";

defineSessionSuite(postgresBackend("The daemon's PostgreSQL server suites"));
