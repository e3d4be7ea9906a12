import pg from "pg";

/**
 * Ends, from the server's side, every other connection to the database `url` names: what a
 * server restart or `DROP DATABASE … WITH (FORCE)` does to a pool's idle connections.
 */
export async function endConnectionsFromServer(url: string): Promise<void> {
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
