import pg from "pg";
import { waitFor } from "./wait-for.ts";

/**
 * Ends, from the server's side, every other connection to the database `url` names: what a
 * server restart or `DROP DATABASE … WITH (FORCE)` does to a pool's idle connections.
 */
async function endConnectionsFromServer(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
  } finally {
    await admin.end();
  }
}

/**
 * Ends the pool's idle connections from the server and waits until the pool reported it to
 * the listener that collects into `failures`; returns the first report.
 */
export async function endConnectionsAndAwaitReport(
  url: string,
  failures: readonly Error[],
): Promise<Error> {
  await endConnectionsFromServer(url);
  return waitFor(
    () => Promise.resolve(failures[0] ?? null),
    "the pool to report the ended connection",
    30_000,
  );
}
