import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./database.ts";
import {
  type PostgresServer,
  postgresBinariesAvailable,
  skipOrFailInCi,
  startPostgresServer,
} from "./server.ts";

const available =
  postgresBinariesAvailable() ||
  skipOrFailInCi(
    "test-postgres needs the PostgreSQL server binaries (initdb, pg_ctl); install them " +
      "(Debian: apt-get install -y postgresql; .ci/run does this).",
  );

describe.skipIf(!available)("startPostgresServer", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("serves a real PostgreSQL on loopback and hands out isolated databases", async () => {
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
    const first = await createTestDatabase(server.url);
    const second = await createTestDatabase(server.url);
    expect(first.url).not.toBe(second.url);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    try {
      const result = await client.query<{ version: string }>("select version() as version");
      expect(result.rows[0]?.version).toMatch(/^PostgreSQL \d+/);
      await client.query("create table t (id int primary key)");
    } finally {
      await client.end();
    }
    const other = new pg.Client({ connectionString: second.url });
    await other.connect();
    try {
      const tables = await other.query("select 1 from pg_tables where tablename = 't'");
      expect(tables.rowCount).toBe(0);
    } finally {
      await other.end();
    }
    await first.drop();
    await second.drop();
  });
});
