import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TranscriptLedger, type RuntimeTranscript } from "@talkide/claude-cli";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openEngineTestDb, seedSession, type EngineTestDb } from "./test-support/engine-db.ts";
import { materialiseTranscript, transcriptAfterTurn } from "./transcripts.ts";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function configDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "turn-engine-transcripts-"));
  roots.push(root);
  return root;
}

const SESSION = "6f1d2c3b-0000-4000-8000-000000000001";
const stored: RuntimeTranscript = {
  sessionId: SESSION,
  projectDir: "-srv-workspaces-one",
  content: '{"type":"user","uuid":"a"}\n{"type":"assistant","uuid":"b"}\n',
};

/** The engine's tables holding one stored transcript (session `s1`) and a session without one. */
let engine: EngineTestDb;
let s1: string;
let s2: string;
beforeAll(async () => {
  engine = await openEngineTestDb();
  s1 = (await seedSession(engine.db, "project:1", null, SESSION, stored)).id;
  s2 = (await seedSession(engine.db, "project:2", null, null)).id;
});
afterAll(async () => {
  await engine.close();
});

describe("the transcript around a cold resume", () => {
  it("writes the stored transcript where the CLI reads it, and reads it back after the turn", async () => {
    const dir = await configDir();
    expect(await materialiseTranscript(engine.db, dir, s1)).toBe(true);
    expect(
      await readFile(join(dir, "projects", stored.projectDir, `${SESSION}.jsonl`), "utf8"),
    ).toBe(stored.content);
    const ledgerOwner = {};
    expect((await transcriptAfterTurn(ledgerOwner, dir, "s1", SESSION))?.whole()).toEqual(stored);
    expect((await transcriptAfterTurn(ledgerOwner, dir, null, SESSION))?.whole()).toEqual(stored);
  });

  it("reads only the lines a turn appended once the ledger stored the transcript", async () => {
    const dir = await configDir();
    expect(await materialiseTranscript(engine.db, dir, s1)).toBe(true);
    const ledgerOwner = {};
    const ledger = TranscriptLedger.of(ledgerOwner);
    const first = await transcriptAfterTurn(ledgerOwner, dir, "s1", SESSION);
    if (first === null) throw new Error("no transcript");
    ledger.stored("s1", "turn-1", ledger.plan("s1", first), false);
    const added = '{"type":"user","uuid":"c"}\n';
    await appendFile(join(dir, "projects", stored.projectDir, `${SESSION}.jsonl`), added);
    const second = await transcriptAfterTurn(ledgerOwner, dir, "s1", SESSION);
    expect(second?.appended?.delta).toBe(added);
    expect(ledger.plan("s1", second ?? first).append).toEqual({
      afterTurnId: "turn-1",
      delta: added,
    });
  });

  it("writes nothing for a session with no stored transcript", async () => {
    const dir = await configDir();
    expect(await materialiseTranscript(engine.db, dir, s2)).toBe(false);
    expect(await transcriptAfterTurn({}, dir, "s2", SESSION)).toBeNull();
  });
});
