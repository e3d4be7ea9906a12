import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGliteDialect } from "./pglite-dialect.ts";

interface Tables {
  t: { id: number; v: string };
}

let db: Kysely<Tables>;
beforeAll(async () => {
  db = new Kysely<Tables>({ dialect: new PGliteDialect(new PGlite()) });
  await sql`create table t (id integer primary key, v text not null)`.execute(db);
});
afterAll(async () => {
  await db.destroy();
});

describe("PGliteDialect", () => {
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
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const tx = db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ id: 20, v: "in-tx" }).execute();
      order.push("tx-insert");
      await gate;
      order.push("tx-rollback");
      throw new Error("rollback on purpose");
    });
    // Queued behind the transaction: if it ran inside it, the rollback would take it along.
    const outside = db
      .insertInto("t")
      .values({ id: 21, v: "outside" })
      .execute()
      .then(() => order.push("outside-insert"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await expect(tx).rejects.toThrow("rollback on purpose");
    await outside;
    expect(order).toEqual(["tx-insert", "tx-rollback", "outside-insert"]);
    const rows = await db.selectFrom("t").select("id").where("id", "in", [20, 21]).execute();
    expect(rows.map((r) => r.id)).toEqual([21]);
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
