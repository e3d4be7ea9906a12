import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@talkide/service-kit/testing";
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
      // What a server restart, or DROP DATABASE … WITH (FORCE), does to it.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
        );
      } finally {
        await admin.end();
      }
      await waitFor(
        () => Promise.resolve(failures.length > 0 ? true : null),
        "the pool to report the ended connection",
        30_000,
      );
      expect(failures[0]?.message).toContain("terminating connection");
      const { rows } = await sql<{ answer: number }>`SELECT 42 AS answer`.execute(opened.db);
      expect(rows).toEqual([{ answer: 42 }]);
    } finally {
      await opened.close();
    }
  });
});
