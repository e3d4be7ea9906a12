import { postgresBackend } from "@talkide/service-kit/testing";
import { defineRoutingSuite } from "./test-support/routing-suite.ts";

defineRoutingSuite(postgresBackend("The hub's PostgreSQL server suite"));
