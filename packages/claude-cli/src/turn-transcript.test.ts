import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, test } from "@fast-check/vitest";
import { afterAll, describe, expect, it } from "vitest";
import { planTranscriptWrite } from "./runtime-transcript.ts";
import {
  CURSOR_TAIL_BYTES,
  planTurnTranscriptWrite,
  readTurnTranscript,
  type TurnTranscript,
} from "./turn-transcript.ts";

const SESSION = "3d2c1b0a-0000-4000-8000-000000000001";
const FOLDER = "-srv-ws";
const root = mkdtempSync(join(tmpdir(), "talkide-turn-transcript-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

let runs = 0;
/** A fresh config dir with the session's file holding `content`; returns the dir and file. */
function fileWith(content: string): { readonly dir: string; readonly file: string } {
  runs += 1;
  const dir = join(root, `cfg-${runs}`);
  mkdirSync(join(dir, "projects", FOLDER), { recursive: true });
  const file = join(dir, "projects", FOLDER, `${SESSION}.jsonl`);
  writeFileSync(file, content);
  return { dir, file };
}

/** Complete lines only: what a read keeps of a file the CLI may still be writing. */
const complete = (text: string): string => text.slice(0, text.lastIndexOf("\n") + 1);

async function read(dir: string, previous: TurnTranscript | null): Promise<TurnTranscript> {
  const transcript = await readTurnTranscript(dir, SESSION, previous?.cursor ?? null);
  if (transcript === null) throw new Error("no transcript");
  return transcript;
}

/** What a store holding `previous` keeps after planning `next` over it. */
function storedAfter(previous: TurnTranscript, next: TurnTranscript): string {
  const plan = planTurnTranscriptWrite(previous.mark, next);
  return plan.append === null ? next.whole().content : previous.whole().content + plan.append;
}

/** JSON lines as the CLI writes them: ASCII, Czech, emoji, sometimes a large tool output. */
const jsonLine = fc
  .tuple(
    fc.string({ unit: fc.constantFrom("a", "ř", "🦀", " ", "\\", '"'), maxLength: 40 }),
    fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 9000 })),
  )
  .map(([text, padding]) => `${JSON.stringify({ text, output: "x".repeat(padding) })}\n`);
const chunk = fc.array(jsonLine, { minLength: 0, maxLength: 3 }).map((lines) => lines.join(""));

describe("reading only what a turn appended", () => {
  test.prop(
    { start: chunk, turns: fc.array(chunk, { maxLength: 6 }), partial: fc.boolean() },
    {
      numRuns: 60,
    },
  )(
    "each read after an append gives exactly the appended lines and the whole file's mark",
    async ({ start, turns, partial }) => {
      const { dir, file } = fileWith(start);
      let content = start;
      let previous = await read(dir, null);
      expect(previous.appended).toBeNull();
      for (const added of turns) {
        // A kept-alive CLI may be in the middle of a line when the file is read.
        const unfinished = partial ? '{"type":"summ' : "";
        appendFileSync(file, added + unfinished);
        const next = await read(dir, previous);
        expect(next.appended?.delta).toBe(added);
        expect(next.mark).toEqual(
          planTranscriptWrite(null, {
            sessionId: SESSION,
            projectDir: FOLDER,
            content: content + added,
          }).mark,
        );
        expect(next.whole().content).toBe(content + added);
        expect(storedAfter(previous, next)).toBe(content + added);
        if (unfinished !== "") {
          // The line completes before the next turn: the file is as if written whole.
          writeFileSync(file, content + added);
        }
        content += added;
        previous = next;
      }
    },
  );

  test.prop(
    {
      stored: fc.array(jsonLine, { minLength: 1, maxLength: 4 }).map((lines) => lines.join("")),
      edit: fc.record({
        kind: fc.constantFrom("insert", "delete", "substitute"),
        at: fc.nat(),
        text: fc.constantFrom("x", "řž", "\n", "}"),
      }),
      added: chunk,
      replaced: fc.boolean(),
    },
    { numRuns: 120 },
  )(
    "a file whose earlier bytes changed is read whole, and the store ends up with the file",
    async ({ stored, edit, added, replaced }) => {
      const { dir, file } = fileWith(stored);
      const before = await read(dir, null);
      const bytes = Buffer.from(stored);
      // Insertions and deletions anywhere shift what follows; a same-length substitution is
      // looked for in the bytes just before the offset (the README says why that is enough).
      const window = Math.max(0, bytes.length - CURSOR_TAIL_BYTES);
      const at =
        edit.kind === "substitute"
          ? window + (edit.at % (bytes.length - window))
          : edit.at % bytes.length;
      const text = Buffer.from(edit.text);
      const rewritten = Buffer.concat([
        bytes.subarray(0, at),
        edit.kind === "delete" ? Buffer.alloc(0) : text,
        bytes.subarray(
          edit.kind === "insert"
            ? at
            : Math.min(bytes.length, at + (edit.kind === "substitute" ? text.length : 1)),
        ),
        Buffer.from(added),
      ]);
      if (replaced) {
        // Put in place by rename, as an atomic writer does: another file at the same path.
        writeFileSync(`${file}.tmp`, rewritten);
        renameSync(`${file}.tmp`, file);
      } else {
        writeFileSync(file, rewritten);
      }
      const after = await read(dir, before);
      const now = complete(rewritten.toString("utf8"));
      if (after.appended !== null) {
        // Read as appended only when the file truly begins with what was read before.
        expect(replaced).toBe(false);
        expect(rewritten.subarray(0, bytes.length).equals(bytes)).toBe(true);
      }
      expect(after.whole().content).toBe(now);
      expect(storedAfter(before, after)).toBe(now);
      expect(after.mark).toEqual(
        planTranscriptWrite(null, { sessionId: SESSION, projectDir: FOLDER, content: now }).mark,
      );
    },
  );

  it("reads a shorter file whole", async () => {
    const { dir, file } = fileWith('{"a":1}\n{"b":2}\n');
    const before = await read(dir, null);
    writeFileSync(file, '{"a":1}\n');
    const after = await read(dir, before);
    expect(after.appended).toBeNull();
    expect(storedAfter(before, after)).toBe('{"a":1}\n');
  });

  it("looks in every project folder when the file left the one it was read in", async () => {
    const { dir, file } = fileWith('{"a":1}\n');
    const before = await read(dir, null);
    mkdirSync(join(dir, "projects", "-srv-moved"));
    renameSync(file, join(dir, "projects", "-srv-moved", `${SESSION}.jsonl`));
    appendFileSync(join(dir, "projects", "-srv-moved", `${SESSION}.jsonl`), '{"b":2}\n');
    const after = await read(dir, before);
    expect(after.projectDir).toBe("-srv-moved");
    expect(after.appended).toBeNull();
    expect(after.whole().content).toBe('{"a":1}\n{"b":2}\n');
  });

  it("is null for a session with no file, or an id that is not a session id", async () => {
    const { dir } = fileWith("");
    expect(await readTurnTranscript(dir, "5e5e5e5e-0000-4000-8000-000000000009", null)).toBeNull();
    expect(await readTurnTranscript(dir, "../../etc/passwd", null)).toBeNull();
    expect(await readTurnTranscript(dir, SESSION, null, "../..")).not.toBeNull();
  });
});
