import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc } from "@fast-check/vitest";
import { MAX_TRANSCRIPT_PARTS, wholeTurnTranscript } from "@talkide/claude-cli";
import {
  engineDb,
  loadTranscript,
  materialiseTranscript,
  recordSuccess,
  startSession,
  transcriptParts,
  type SessionRow,
} from "@talkide/turn-engine";
import { type Kysely, sql } from "kysely";
import { describe, expect, test } from "vitest";
import { openDatabase } from "../db/connect.ts";
import { useMigratedEmbeddedDatabase } from "../test-support/embedded-database.ts";
import { migrateToLatest } from "../db/migrate.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { projectScope } from "./session-pinning.ts";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { migrateBefore } from "../test-support/earlier-schema.ts";

const TURN_A = "00000000-0000-4000-8000-00000000000a";
const TURN_B = "00000000-0000-4000-8000-00000000000b";
const TURN_C = "00000000-0000-4000-8000-00000000000c";

const line = (n: number): string => `{"n":${n},"text":"řádek ${n} 🦀"}\n`;
const lines = (count: number): string => Array.from({ length: count }, (_, i) => line(i)).join("");

const embedded = useMigratedEmbeddedDatabase("talkide-transcripts-");
/** The engine's tables in the backend's database, where the pipeline loads transcripts from. */
const store = () => engineDb(embedded.database.db);
let sessionCounter = 0;

/** A session of a project of its own (a project has one open session at a time). */
async function newSession(): Promise<SessionRow> {
  sessionCounter += 1;
  return startSession(engineDb(embedded.database.db), projectScope(sessionCounter), null);
}

function loadSessionTranscript(db: Kysely<DatabaseSchema>, sessionId: string) {
  return loadTranscript(engineDb(db), sessionId);
}

/**
 * Stores a session's transcript as of a successful turn, as the backend's outcome does: through
 * the engine, which appends what the CLI added when the stored copy is the one this process
 * (the database's ledger) wrote last.
 */
async function storeSessionTranscript(
  db: Kysely<DatabaseSchema>,
  sessionId: string,
  turnId: string,
  turn: ReturnType<typeof wholeTurnTranscript>,
): Promise<void> {
  await recordSuccess(engineDb(db), db, {
    sessionId,
    turnId,
    point: { id: turn.sessionId, at: null },
    costUsd: null,
    transcript: turn,
  });
}

const parts = async (sessionId: string): Promise<string[]> =>
  (await transcriptParts(engineDb(embedded.database.db), sessionId)).map((part) => part.content);

const transcript = (content: string, sessionId = "c1a0de01-0000", projectDir = "-ws") => ({
  sessionId,
  projectDir,
  content,
});

/** The same, as a turn's transcript read whole (what transcriptAfterTurn returns then). */
const turnTranscript = (...args: Parameters<typeof transcript>) =>
  wholeTurnTranscript(transcript(...args));

describe("a session's transcript is stored in parts", () => {
  test("each turn appends what the CLI added; the parts together are the file", async () => {
    const session = await newSession();
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_A,
      turnTranscript(lines(3)),
    );
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_B,
      turnTranscript(lines(5)),
    );
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_C,
      turnTranscript(lines(5)),
    );
    expect(await parts(session.id)).toEqual([lines(3), line(3) + line(4)]);
    expect(await loadSessionTranscript(embedded.database.db, session.id)).toEqual(
      transcript(lines(5)),
    );

    const configDir = join(embedded.dir, "config");
    expect(await materialiseTranscript(store(), configDir, session.id)).toBe(true);
    expect(readFileSync(join(configDir, "projects", "-ws", "c1a0de01-0000.jsonl"), "utf8")).toBe(
      lines(5),
    );
  });

  test("a file that no longer begins with the stored copy is stored whole again, as the only part", async () => {
    const session = await newSession();
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_A,
      turnTranscript(lines(3)),
    );
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_B,
      turnTranscript(lines(4)),
    );
    const rewritten = lines(4).replace('"n":1,', '"n":1,"edited":true,');
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_C,
      turnTranscript(rewritten),
    );
    expect(await parts(session.id)).toEqual([rewritten]);
    expect((await loadSessionTranscript(embedded.database.db, session.id))?.content).toBe(
      rewritten,
    );
  });

  test("another session id or folder, or a shorter file, replaces the stored copy", async () => {
    const session = await newSession();
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_A,
      turnTranscript(lines(3)),
    );
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_B,
      turnTranscript(lines(4), "c2a0de02-0000"),
    );
    expect(await loadSessionTranscript(embedded.database.db, session.id)).toEqual(
      transcript(lines(4), "c2a0de02-0000"),
    );
    expect(await parts(session.id)).toHaveLength(1);
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_C,
      turnTranscript(lines(4), "c2a0de02-0000", "-other"),
    );
    expect(await parts(session.id)).toHaveLength(1);
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_A,
      turnTranscript(lines(2), "c2a0de02-0000", "-other"),
    );
    expect(await loadSessionTranscript(embedded.database.db, session.id)).toEqual(
      transcript(lines(2), "c2a0de02-0000", "-other"),
    );
  });

  test(`after ${MAX_TRANSCRIPT_PARTS} parts the next turn stores the whole file again, as one part`, async () => {
    const session = await newSession();
    for (let count = 1; count <= MAX_TRANSCRIPT_PARTS + 1; count += 1) {
      await storeSessionTranscript(
        embedded.database.db,
        session.id,
        TURN_A,
        turnTranscript(lines(count)),
      );
    }
    expect(await parts(session.id)).toEqual([lines(MAX_TRANSCRIPT_PARTS + 1)]);
    await storeSessionTranscript(
      embedded.database.db,
      session.id,
      TURN_B,
      turnTranscript(lines(MAX_TRANSCRIPT_PARTS + 2)),
    );
    expect(await parts(session.id)).toHaveLength(2);
  });

  test("nothing stored: nothing to materialise", async () => {
    const session = await newSession();
    expect(await loadSessionTranscript(embedded.database.db, session.id)).toBeNull();
    expect(await materialiseTranscript(store(), join(embedded.dir, "none"), session.id)).toBe(
      false,
    );
  });

  test("property: after any sequence of writes, the stored transcript is the last file written", async () => {
    const session = await newSession();
    // Files that mostly grow by appended lines, sometimes change an earlier line or start over.
    const step = fc.oneof(
      { arbitrary: fc.array(fc.string({ unit: "grapheme" }), { maxLength: 3 }), weight: 4 },
      { arbitrary: fc.constant("rewrite" as const), weight: 1 },
      { arbitrary: fc.constant("restart" as const), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        let content = "";
        for (const s of steps) {
          if (s === "rewrite") content = content.length === 0 ? "x\n" : `!${content.slice(1)}`;
          else if (s === "restart") content = "";
          else content += s.map((text) => `${JSON.stringify(text)}\n`).join("");
          await storeSessionTranscript(
            embedded.database.db,
            session.id,
            TURN_A,
            turnTranscript(content),
          );
          expect((await loadSessionTranscript(embedded.database.db, session.id))?.content).toBe(
            content,
          );
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("migration 0007: a transcript stored whole becomes the first part", () => {
  test("content moves into part 1 with an unknown digest; the next store replaces it", async () => {
    const oldDir = mkdtempSync(join(tmpdir(), "talkide-transcripts-0006-"));
    await seedPgliteDataDir(oldDir);
    const old = await openDatabase({ databaseUrl: null, dataDir: oldDir });
    try {
      await migrateBefore(old.db, "0007");
      await old.db
        .insertInto("projects")
        .values({ id: 1, name: "P", url: null, description: null, workspace_dir: "/ws" })
        .execute();
      // The tables as they were then (moved to the engine's by 0017).
      const inserted = await sql<{ id: string }>`INSERT INTO agent_sessions
        (project_id, claude_session_id) VALUES (1, 's') RETURNING id`.execute(old.db);
      const session = { id: inserted.rows[0]?.id ?? "" };
      await sql`INSERT INTO agent_session_transcripts (agent_session_id, claude_session_id, project_dir, content, turn_id)
        VALUES (${session.id}, 'c1a0de01-0000', '-ws', ${lines(2)}, ${TURN_A})`.execute(old.db);

      expect(await migrateToLatest(old.db)).toContain("0007_transcript_parts");
      // Moved to the engine's tables since (0017), as the only part.
      const moved = await transcriptParts(engineDb(old.db), session.id);
      expect(moved.map((part) => part.content)).toEqual([lines(2)]);
      expect(await loadSessionTranscript(old.db, session.id)).toEqual(transcript(lines(2)));

      await storeSessionTranscript(old.db, session.id, TURN_B, turnTranscript(lines(3)));
      expect(await loadSessionTranscript(old.db, session.id)).toEqual(transcript(lines(3)));
      const replaced = await transcriptParts(engineDb(old.db), session.id);
      expect(replaced.map((part) => part.content)).toEqual([lines(3)]);
    } finally {
      await old.close();
      rmSync(oldDir, { recursive: true, force: true });
    }
  });
});
