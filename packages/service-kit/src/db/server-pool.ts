import pg from "pg";

/**
 * A connection pool to a PostgreSQL server, as every service opens one: at most 10
 * connections unless `config` says otherwise, and an `error` listener. An idle pooled
 * connection that fails (the server restarted or ended it, also one the pool is still closing)
 * is reported to `onConnectionError` and replaced; without a listener pg re-emits the error on
 * the pool and it ends the process.
 */
export function openServerPool(
  config: pg.PoolConfig,
  onConnectionError?: (error: Error) => void,
): pg.Pool {
  const pool = new pg.Pool({ max: 10, ...config });
  pool.on("error", (error) => {
    onConnectionError?.(error);
  });
  return pool;
}
