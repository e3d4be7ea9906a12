import { describe, expect, it } from "vitest";
import { Cleanups } from "./cleanups.ts";

describe("Cleanups", () => {
  it("runs the steps last pushed first, each once, and goes on past one that fails", async () => {
    const ran: string[] = [];
    const failures: unknown[] = [];
    const cleanups = new Cleanups((error) => failures.push(error));
    cleanups.push(() => {
      ran.push("database");
    });
    cleanups.push(async () => {
      await Promise.resolve();
      ran.push("queue");
      throw new Error("queue would not close");
    });
    cleanups.push(() => {
      ran.push("server");
    });
    const first = cleanups.close();
    const second = cleanups.close();
    expect(second).toBe(first);
    await first;
    await cleanups.close();
    expect(ran).toEqual(["server", "queue", "database"]);
    expect(failures).toEqual([new Error("queue would not close")]);
  });
});
