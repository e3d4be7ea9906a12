import {
  createTestDatabase,
  postgresSuiteCanRun,
  startPostgresServer,
  type PostgresServer,
} from "@talkide/test-postgres";

/**
 * Where a suite's services (a daemon, a hub) keep their data: embedded PGlite (the default) or
 * a real PostgreSQL server (`TALKIDE_TEST_PG_URL`, else a throwaway server from the machine's
 * binaries). Each service a test starts gets a fresh database.
 */
export interface Backend {
  readonly name: "pglite" | "postgres";
  /** Whether this backend can run here; a suite that cannot is skipped loudly. */
  readonly available: boolean;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A connection URL for a fresh database, or null for the embedded database. */
  newDatabase(): Promise<string | null>;
}

export function pgliteBackend(): Backend {
  return {
    name: "pglite",
    available: true,
    setup: () => Promise.resolve(),
    teardown: () => Promise.resolve(),
    newDatabase: () => Promise.resolve(null),
  };
}

export function postgresBackend(
  /** Who needs the server, for the message when it is missing ("The hub's … suites"). */
  suites = "These PostgreSQL server suites",
): Backend {
  const configured = process.env["TALKIDE_TEST_PG_URL"];
  const available = postgresSuiteCanRun(suites);
  let server: PostgresServer | null = null;
  let adminUrl: string | null = null;
  const drops: (() => Promise<void>)[] = [];
  return {
    name: "postgres",
    available,
    async setup() {
      if (configured !== undefined && configured !== "") {
        adminUrl = configured;
        return;
      }
      server = await startPostgresServer();
      adminUrl = server.url;
    },
    async teardown() {
      for (const drop of drops.splice(0)) await drop().catch(() => undefined);
      await server?.stop();
    },
    async newDatabase() {
      if (adminUrl === null) throw new Error("postgres backend used before setup()");
      const database = await createTestDatabase(adminUrl);
      drops.push(() => database.drop());
      return database.url;
    },
  };
}
