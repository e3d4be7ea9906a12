import type { PGlite, Transaction } from "@electric-sql/pglite";
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from "kysely";

/**
 * A Kysely dialect for embedded PGlite.
 *
 * PGlite is one Postgres backend in this process: there is no pool, and statements of two
 * callers would interleave inside each other's transactions. So the driver hands out its
 * single connection to one caller at a time (a FIFO lock), which is exactly the isolation a
 * transaction needs. While a caller holds it, the driver also holds PGlite's own transaction
 * lock, so other users of the same PGlite (the work queue's pg-boss) wait instead of landing
 * inside the caller's transaction. The published community dialects pin older PGlite majors, hence this
 * small driver (the SQL side is Kysely's own Postgres adapter and compiler).
 */
export class PGliteDialect implements Dialect {
  readonly #pglite: PGlite;
  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.#pglite);
  }
  createIntrospector(db: Parameters<Dialect["createIntrospector"]>[0]) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  readonly #pglite: PGlite;
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    // PGlite's transaction() holds its lock until the callback ends; the callback ends when
    // the caller releases the connection. Its BEGIN/COMMIT wrap the caller's statements (an
    // inner begin/commit of Kysely's transaction only draws a notice), so a single statement
    // commits as it would on its own.
    const held = new Promise<void>((resolve) => {
      this.#release = () => {
        resolve();
        release();
      };
    });
    const tx = await new Promise<Transaction>((resolve, reject) => {
      this.#pglite
        .transaction(async (t) => {
          resolve(t);
          await held;
        })
        .catch((error: unknown) => {
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
    return new PGliteConnection(tx);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    // Wait for whoever holds the connection, so close never cuts a transaction in half.
    await this.#tail;
    if (!this.#pglite.closed) await this.#pglite.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #tx: Transaction;
  constructor(tx: Transaction) {
    this.#tx = tx;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#tx.query<R>(compiled.sql, [...compiled.parameters]);
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected === undefined ? {} : { numAffectedRows: BigInt(affected) }),
    };
  }

  // eslint-disable-next-line require-yield -- streaming is not offered by this driver
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    await Promise.resolve();
    throw new Error("PGlite dialect: streaming queries are not supported; use execute()");
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
