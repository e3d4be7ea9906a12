import { describe, expect, it } from "vitest";
import { MAX_TRANSCRIPT_PARTS } from "./runtime-transcript.ts";
import { TranscriptLedger } from "./transcript-ledger.ts";
import { wholeTurnTranscript } from "./turn-transcript.ts";

const SESSION = "5c7d3a1e-0000-4000-8000-000000000001";
const transcript = (content: string, sessionId = "rt-1", projectDir = "-ws") =>
  wholeTurnTranscript({ sessionId, projectDir, content });

describe("TranscriptLedger", () => {
  it("plans a whole write for a session it stored nothing of", () => {
    const ledger = new TranscriptLedger();
    expect(ledger.plan(SESSION, transcript("a\n")).append).toBeNull();
  });

  it("knows the folder of the transcript it stored last for a session", () => {
    const ledger = new TranscriptLedger();
    expect(ledger.projectDirOf(SESSION)).toBeNull();
    // The CLI moved the session to another folder: the ledger follows the latest store.
    for (const [turnId, folder] of [
      ["turn-1", "-ws-1"],
      ["turn-2", "-ws-2"],
    ] as const) {
      ledger.stored(
        SESSION,
        turnId,
        ledger.plan(SESSION, transcript("a\n", "rt-1", folder)),
        false,
      );
      expect(ledger.projectDirOf(SESSION)).toBe(folder);
    }
  });

  it("plans only the new lines after what it stored, naming the turn that stored it", () => {
    const ledger = new TranscriptLedger();
    const first = transcript("a\nb\n");
    ledger.stored(SESSION, "turn-1", ledger.plan(SESSION, first), false);
    const second = transcript("a\nb\nc\n");
    const plan = ledger.plan(SESSION, second);
    expect(plan.append).toEqual({ afterTurnId: "turn-1", delta: "c\n" });
    ledger.stored(SESSION, "turn-2", plan, true);
    expect(ledger.plan(SESSION, transcript("a\nb\nc\nd\n")).append).toEqual({
      afterTurnId: "turn-2",
      delta: "d\n",
    });
  });

  it("writes whole what did not merely grow: rewritten, shorter, another session or folder", () => {
    const ledger = new TranscriptLedger();
    const first = transcript("a\nb\n");
    ledger.stored(SESSION, "turn-1", ledger.plan(SESSION, first), false);
    expect(ledger.plan(SESSION, transcript("a\nB\nc\n")).append).toBeNull();
    expect(ledger.plan(SESSION, transcript("a\n")).append).toBeNull();
    expect(ledger.plan(SESSION, transcript("a\nb\nc\n", "rt-2")).append).toBeNull();
    expect(ledger.plan(SESSION, transcript("a\nb\nc\n", "rt-1", "-other")).append).toBeNull();
    // The same bytes again: nothing to add, still an append (of nothing).
    expect(ledger.plan(SESSION, first).append).toEqual({ afterTurnId: "turn-1", delta: "" });
  });

  it("writes whole again once parts piled up, and appends after that", () => {
    const ledger = new TranscriptLedger();
    let content = "start\n";
    let t = transcript(content);
    // The whole write is the first part; appends add one each (an empty one adds none).
    ledger.stored(SESSION, "turn-0", ledger.plan(SESSION, t), false);
    const same = ledger.plan(SESSION, t);
    expect(same.append?.delta).toBe("");
    ledger.stored(SESSION, "turn-same", same, true);
    for (let i = 1; i < MAX_TRANSCRIPT_PARTS; i += 1) {
      content += `line ${i}\n`;
      t = transcript(content);
      const plan = ledger.plan(SESSION, t);
      expect(plan.append?.delta).toBe(`line ${i}\n`);
      ledger.stored(SESSION, `turn-${i}`, plan, true);
    }
    content += "one more\n";
    t = transcript(content);
    const whole = ledger.plan(SESSION, t);
    expect(whole.append).toBeNull();
    ledger.stored(SESSION, "turn-whole", whole, false);
    expect(ledger.plan(SESSION, transcript(`${content}next\n`)).append?.delta).toBe("next\n");
  });

  it("appends after a store it was told of (remember), counting that store's parts", () => {
    const ledger = new TranscriptLedger();
    const stored = transcript("a\n");
    const { mark } = ledger.plan(SESSION, stored);
    ledger.remember(SESSION, "turn-7", mark, MAX_TRANSCRIPT_PARTS - 1);
    const grown = transcript("a\nb\n");
    const plan = ledger.plan(SESSION, grown);
    expect(plan.append).toEqual({ afterTurnId: "turn-7", delta: "b\n" });
    ledger.stored(SESSION, "turn-8", plan, true);
    // That made MAX_TRANSCRIPT_PARTS parts: the next store is whole.
    expect(ledger.plan(SESSION, transcript("a\nb\nc\n")).append).toBeNull();
  });

  it("is one ledger per owner", () => {
    const owner = {};
    expect(TranscriptLedger.of(owner)).toBe(TranscriptLedger.of(owner));
    expect(TranscriptLedger.of(owner)).not.toBe(TranscriptLedger.of({}));
  });

  it("keeps the digest of the whole transcript, whichever way it was planned", () => {
    const a = new TranscriptLedger();
    const b = new TranscriptLedger();
    const first = transcript("x\n");
    a.stored(SESSION, "turn-1", a.plan(SESSION, first), false);
    const grown = transcript("x\ny\n");
    const appended = a.plan(SESSION, grown);
    expect(appended.mark).toEqual(b.plan(SESSION, grown).mark);
  });
});
