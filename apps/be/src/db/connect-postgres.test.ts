import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endConnectionsAndAwaitReport } from "@talkide/service-kit/testing";
import { freshPostgresDatabase, postgresAvailable } from "../test-support/harness.ts";
import { openDatabase } from "./connect.ts";

const skip = !postgresAvailable();

describe("the backend's server database: an idle connection ended by the server", () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>> | null = null;

  beforeAll(async () => {
    if (!skip) database = await freshPostgresDatabase();
  }, 60_000);
  afterAll(async () => {
    await database?.dispose();
  });

  it.skipIf(skip)("is reported and replaced, and the process goes on", async () => {
    const url = database?.url ?? "";
    const failures: Error[] = [];
    const opened = await openDatabase({
      databaseUrl: url,
      dataDir: "/nonexistent",
      onConnectionError: (error) => failures.push(error),
    });
    try {
      await sql`SELECT 1`.execute(opened.db); // leaves one connection idle in the pool
      const report = await endConnectionsAndAwaitReport(url, failures);
      expect(report.message).toContain("terminating connection");
      const { rows } = await sql<{ answer: number }>`SELECT 42 AS answer`.execute(opened.db);
      expect(rows).toEqual([{ answer: 42 }]);
    } finally {
      await opened.close();
    }
  });
});
