/**
 * The PostgreSQL server a benchmark's server rows run on: `TALKIDE_TEST_PG_URL` when set,
 * else a throwaway server of the machine's PostgreSQL binaries, else none (those rows are
 * left out and the report says so).
 */
import { postgresBinariesAvailable, startPostgresServer } from "@talkide/test-postgres";

export interface BenchPostgres {
  /** A URL to create databases with, or null when there is no server to measure on. */
  readonly adminUrl: string | null;
  /** Stops the throwaway server, if one was started. */
  stop(): Promise<void>;
}

export async function benchPostgres(): Promise<BenchPostgres> {
  const given = process.env.TALKIDE_TEST_PG_URL;
  if (given !== undefined) return { adminUrl: given, stop: () => Promise.resolve() };
  if (!postgresBinariesAvailable()) return { adminUrl: null, stop: () => Promise.resolve() };
  const server = await startPostgresServer();
  return { adminUrl: server.url, stop: () => server.stop() };
}
