import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { buildMemberMessage } from "@talkide/prompts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addMember,
  api,
  freshPostgresDatabase,
  postgresAvailable,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "./harness.ts";

const MESSAGES = 20;

/**
 * 20 simultaneous messages to one project, from two members in turn: every turn must run
 * alone, in arrival order, and see complete context files of its own writer, while a reader
 * polling CLAUDE.md never sees a torn file.
 */
export function describeConcurrentMessages(
  layout: "split" | "single",
  database: "embedded" | "postgres",
): void {
  describe(`20 simultaneous messages to one project (${layout} layout, ${database} database)`, () => {
    let harness: Harness;
    let anna: TestUser;
    let bob: TestUser;
    let dropDatabase: (() => Promise<void>) | null = null;
    const skip = database === "postgres" && !postgresAvailable();

    beforeAll(async () => {
      if (skip) return;
      let databaseUrl: string | null = null;
      if (database === "postgres") {
        const db = await freshPostgresDatabase();
        databaseUrl = db.url;
        dropDatabase = async () => {
          await db.drop();
          await db.stopServer();
        };
      }
      harness = await startHarness({
        databaseUrl,
        env: { TALKIDE_CONTEXT_LAYOUT: layout, TALKIDE_TURN_QUEUE_LIMIT: "32" },
      });
      anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
      bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
    }, 60_000);
    afterAll(async () => {
      if (skip) return;
      await harness.close();
      await dropDatabase?.();
    });

    it.skipIf(skip)(
      "are serialized into 20 turns, each seeing the complete files of its own writer",
      async () => {
        const created = await api<{ project: { id: number; workspaceDir: string } }>(
          harness,
          anna.token,
          "POST",
          "/v1/projects",
          {
            name: "Souběh",
            // A long roster entry, so CLAUDE.md is big enough for a torn write to be visible.
            member: { salutation: "Anna", teamBriefing: "Řádek briefingu.\n".repeat(200) },
          },
        );
        const { id, workspaceDir } = created.body.project;
        await addMember(harness, anna.token, id, {
          email: "bob@example.com",
          salutation: "Bob",
          teamBriefing: "Druhý briefing.\n".repeat(200),
        });
        const expected = new Map<string, string>();
        for (const [name, user] of [
          ["Anna", anna],
          ["Bob", bob],
        ] as const) {
          const preview = await api<{ files: Array<{ path: string; content: string }> }>(
            harness,
            user.token,
            "GET",
            `/v1/projects/${id}/context`,
          );
          const claudeMd = preview.body.files.find((f) => f.path === "CLAUDE.md")?.content ?? "";
          const writer =
            preview.body.files.find((f) => f.path === ".talkide/active-writer.md")?.content ?? "";
          expect(claudeMd.length).toBeGreaterThan(6_000);
          expected.set(name, claudeMd + writer);
        }
        const allowedClaudeMd = new Set(
          [...expected.values()].map((both) =>
            both.slice(0, both.indexOf("# Aktuálně píše\n", both.length - 200)),
          ),
        );

        const record = join(harness.dataDir, "record.jsonl");
        harness.claudeEnv.FAKE_CLAUDE_RECORD = record;
        // Each "agent" reads its context files while its turn runs.
        harness.claudeEnv.FAKE_CLAUDE_RUN =
          layout === "split" ? "cat CLAUDE.md .talkide/active-writer.md" : "cat CLAUDE.md";

        // Meanwhile a reader keeps reading CLAUDE.md: every read must be one complete version.
        const reading = { on: true };
        const reads: string[] = [];
        const reader = (async () => {
          while (reading.on) {
            const text = await readFile(join(workspaceDir, "CLAUDE.md"), "utf8").catch(() => null);
            if (text !== null) reads.push(text);
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
        })();

        const senders = Array.from({ length: MESSAGES }, (_, i) => (i % 2 === 0 ? "Anna" : "Bob"));
        const results = await Promise.all(
          senders.map((name, i) =>
            sendMessage(
              harness,
              (name === "Anna" ? anna : bob).token,
              id,
              `zpráva ${i} od ${name}`,
            ),
          ),
        );
        reading.on = false;
        await reader;

        expect(results.map((r) => r.status)).toEqual(Array(MESSAGES).fill(202));
        expect(results.map((r) => terminalEvent(r.events).event)).toEqual(
          Array(MESSAGES).fill("turn.succeeded"),
        );

        const turns = (
          await api<{
            turns: Array<{
              number: number;
              message: string;
              startedAt: string;
              finishedAt: string;
              status: string;
            }>;
          }>(harness, anna.token, "GET", `/v1/projects/${id}/turns?limit=50`)
        ).body.turns.reverse();
        expect(turns.map((t) => t.number)).toEqual(
          Array.from({ length: MESSAGES }, (_, i) => i + 1),
        );
        // Serialized: a turn starts only after the previous one finished, in turn-number order.
        for (let i = 1; i < turns.length; i += 1) {
          expect(Date.parse(turns[i]?.startedAt ?? "")).toBeGreaterThanOrEqual(
            Date.parse(turns[i - 1]?.finishedAt ?? ""),
          );
        }

        const spawns = await readFakeClaudeRecords(record);
        expect(spawns).toHaveLength(MESSAGES);
        // In turn order, and each spawn saw exactly its sender's files (single layout: CLAUDE.md
        // holds the writer section itself).
        expect(spawns.map((s) => s.stdin)).toEqual(turns.map((t) => buildMemberMessage(t.message)));
        for (const spawn of spawns) {
          const sender = /od (\w+)$/.exec(spawn.stdin)?.[1] ?? "";
          expect(spawn.run?.stdout === expected.get(sender)).toBe(true);
        }

        expect(reads.length).toBeGreaterThan(0);
        const torn = reads.filter((text) =>
          layout === "split" ? !allowedClaudeMd.has(text) : ![...expected.values()].includes(text),
        );
        expect(torn).toEqual([]);
        delete harness.claudeEnv.FAKE_CLAUDE_RUN;
        delete harness.claudeEnv.FAKE_CLAUDE_RECORD;
      },
      60_000,
    );
  });
}
