import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endConnectionsAndAwaitReport, postgresBackend } from "../test-support/index.ts";
import { openServerPool } from "./server-pool.ts";

const backend = postgresBackend("The PostgreSQL server suite of @talkide/service-kit");

describe("openServerPool: an idle connection the server ends", () => {
  beforeAll(() => (backend.available ? backend.setup() : undefined), 60_000);
  afterAll(() => (backend.available ? backend.teardown() : undefined));

  it.skipIf(!backend.available)("is reported and replaced; the process goes on", async () => {
    const url = (await backend.newDatabase()) ?? "";
    const failures: Error[] = [];
    const pool = openServerPool({ connectionString: url }, (error) => failures.push(error));
    try {
      await pool.query("SELECT 1"); // leaves one connection idle in the pool
      const report = await endConnectionsAndAwaitReport(url, failures);
      expect(report.message).toContain("terminating connection");
      expect((await pool.query<{ answer: number }>("SELECT 42 AS answer")).rows).toEqual([
        { answer: 42 },
      ]);
    } finally {
      await pool.end();
    }
  });
});
