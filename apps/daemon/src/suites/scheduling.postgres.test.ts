import { postgresBackend } from "@talkide/service-kit/testing";
import { defineSchedulingSuite } from "../test-support/scheduling-suite.ts";

defineSchedulingSuite(postgresBackend("The daemon's PostgreSQL server suites"));
