import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, seededPgliteCluster } from "../test-support/index.ts";

// What the services rely on from the embedded dialect `openDatabase` uses (Kysely's own).

interface Tables {
  t: { id: number; v: string };
}

/** A PGlite on a copy of the empty cluster in `dir` (`new PGlite()` would run initdb). */
async function seededPglite(dir: string): Promise<PGlite> {
  return new PGlite(await seededPgliteCluster(dir));
}

let db: Kysely<Tables>;
let dbDir: string;
beforeAll(async () => {
  dbDir = await makeTempDir("talkide-dialect-");
  db = new Kysely<Tables>({ dialect: new PGliteDialect({ pglite: await seededPglite(dbDir) }) });
  await sql`create table t (id integer primary key, v text not null)`.execute(db);
});
afterAll(async () => {
  await db.destroy();
  await removeDir(dbDir);
});

/** Pending until `open()`: holds a transaction open for as long as a test needs. */
function gate(): { readonly promise: Promise<void>; readonly open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Lets work that waits on a lock get as far as it can. */
const settle = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 20));

describe("the embedded dialect", () => {
  it("reports affected rows", async () => {
    const r = await db
      .insertInto("t")
      .values([
        { id: 1, v: "a" },
        { id: 2, v: "b" },
      ])
      .executeTakeFirst();
    expect(r.numInsertedOrUpdatedRows).toBe(2n);
    const u = await db.updateTable("t").set({ v: "c" }).where("id", "=", 1).executeTakeFirst();
    expect(u.numUpdatedRows).toBe(1n);
  });

  it("rolls a failed transaction back", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ id: 10, v: "x" }).execute();
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await db.selectFrom("t").selectAll().where("id", "=", 10).execute()).toEqual([]);
  });

  it("never lets a statement from outside run inside another caller's transaction", async () => {
    const held = gate();
    const order: string[] = [];
    const tx = db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ id: 20, v: "in-tx" }).execute();
      order.push("tx-insert");
      await held.promise;
      order.push("tx-rollback");
      throw new Error("rollback on purpose");
    });
    // Queued behind the transaction: if it ran inside it, the rollback would take it along.
    const outside = db
      .insertInto("t")
      .values({ id: 21, v: "outside" })
      .execute()
      .then(() => order.push("outside-insert"));
    await settle();
    held.open();
    await expect(tx).rejects.toThrow("rollback on purpose");
    await outside;
    expect(order).toEqual(["tx-insert", "tx-rollback", "outside-insert"]);
    const rows = await db.selectFrom("t").select("id").where("id", "in", [20, 21]).execute();
    expect(rows.map((r) => r.id)).toEqual([21]);
  });

  it("never lets a statement of another PGlite user (the work queue) run inside a transaction", async () => {
    const dir = await makeTempDir("talkide-dialect-");
    const pglite = await seededPglite(dir);
    const shared = new Kysely<Tables>({ dialect: new PGliteDialect({ pglite }) });
    try {
      await sql`create table t (id integer primary key, v text not null)`.execute(shared);
      const held = gate();
      const tx = shared.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ id: 1, v: "in-tx" }).execute();
        await held.promise;
        throw new Error("rollback on purpose");
      });
      await settle();
      const direct = pglite.query("insert into t (id, v) values (2, 'direct')");
      await settle();
      held.open();
      await expect(tx).rejects.toThrow("rollback on purpose");
      await direct;
      const rows = await shared.selectFrom("t").select("id").execute();
      expect(rows.map((r) => r.id)).toEqual([2]);
    } finally {
      await shared.destroy();
      await removeDir(dir);
    }
  });

  it("closes only after a running transaction ended: nothing of it is cut off", async () => {
    const dir = await makeTempDir("talkide-dialect-");
    try {
      const cluster = await seededPgliteCluster(dir);
      const first = new Kysely<Tables>({
        dialect: new PGliteDialect({ pglite: new PGlite(cluster) }),
      });
      await sql`create table t (id integer primary key, v text not null)`.execute(first);
      const held = gate();
      const tx = first.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ id: 1, v: "a" }).execute();
        await held.promise;
        await trx.insertInto("t").values({ id: 2, v: "b" }).execute();
      });
      await settle();
      const closed = first.destroy();
      await settle();
      held.open();
      await tx;
      await closed;
      const reopened = new Kysely<Tables>({
        dialect: new PGliteDialect({ pglite: new PGlite(cluster) }),
      });
      const rows = await reopened.selectFrom("t").select("id").orderBy("id").execute();
      await reopened.destroy();
      expect(rows.map((r) => r.id)).toEqual([1, 2]);
    } finally {
      await removeDir(dir);
    }
  });

  it("supports savepoints (nested transactions)", async () => {
    const trx = await db.startTransaction().execute();
    await trx.insertInto("t").values({ id: 30, v: "outer" }).execute();
    const inner = await trx.savepoint("inner").execute();
    await inner.insertInto("t").values({ id: 31, v: "inner" }).execute();
    await inner.rollbackToSavepoint("inner").execute();
    await trx.commit().execute();
    const rows = await db.selectFrom("t").select("id").where("id", "in", [30, 31]).execute();
    expect(rows.map((r) => r.id)).toEqual([30]);
  });
});
