import { mkdtemp, readFile, rm, mkdir, writeFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, test } from "@fast-check/vitest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import {
  planTranscriptWrite,
  readRuntimeTranscript,
  writeRuntimeTranscript,
} from "./runtime-transcript.ts";

const SESSION = "0b9f3c1e-8d52-4c1a-9a57-6f0e2d4b7c11";

describe("runtime transcripts", () => {
  let configDir: string;
  beforeEach(async () => {
    configDir = await mkdtemp(join(tmpdir(), "talkide-transcript-"));
  });
  afterEach(async () => {
    await rm(configDir, { recursive: true, force: true });
  });

  it("reads the transcript the CLI wrote, from whichever project folder holds it", async () => {
    await mkdir(join(configDir, "projects", "-work-a"), { recursive: true });
    await mkdir(join(configDir, "projects", "-work-b"), { recursive: true });
    await writeFile(join(configDir, "projects", "-work-b", `${SESSION}.jsonl`), '{"a":1}\n');
    expect(await readRuntimeTranscript(configDir, SESSION)).toEqual({
      sessionId: SESSION,
      projectDir: "-work-b",
      content: '{"a":1}\n',
    });
  });

  it("looks first in the folder it found the session in last time, and elsewhere when it moved", async () => {
    for (const folder of ["-work-a", "-work-b", "-work-c"]) {
      await mkdir(join(configDir, "projects", folder), { recursive: true });
    }
    await writeFile(join(configDir, "projects", "-work-a", `${SESSION}.jsonl`), '{"a":1}\n');
    await writeFile(join(configDir, "projects", "-work-c", `${SESSION}.jsonl`), '{"c":1}\n');
    // Without a hint the first folder in name order wins, as the CLI's own lookup would.
    expect((await readRuntimeTranscript(configDir, SESSION))?.projectDir).toBe("-work-a");
    expect(await readRuntimeTranscript(configDir, SESSION, "-work-c")).toEqual({
      sessionId: SESSION,
      projectDir: "-work-c",
      content: '{"c":1}\n',
    });
    // A hint that names no folder (or one without the file) only changes where it looks first.
    expect((await readRuntimeTranscript(configDir, SESSION, "-work-b"))?.projectDir).toBe(
      "-work-a",
    );
    expect((await readRuntimeTranscript(configDir, SESSION, "../x"))?.projectDir).toBe("-work-a");
  });

  it("reads only complete lines: a line the CLI is still appending is left for the next read", async () => {
    await mkdir(join(configDir, "projects", "-work-a"), { recursive: true });
    const file = join(configDir, "projects", "-work-a", `${SESSION}.jsonl`);
    await writeFile(file, '{"a":1}\n{"b":2}\n{"type":"atis-la');
    expect((await readRuntimeTranscript(configDir, SESSION))?.content).toBe('{"a":1}\n{"b":2}\n');
    await writeFile(file, '{"half');
    expect((await readRuntimeTranscript(configDir, SESSION))?.content).toBe("");
  });

  it("finds nothing for an unknown session, a missing config dir or an id that is not one", async () => {
    expect(await readRuntimeTranscript(configDir, SESSION)).toBeNull();
    expect(await readRuntimeTranscript(join(configDir, "missing"), SESSION)).toBeNull();
    expect(await readRuntimeTranscript(configDir, "../../etc/passwd")).toBeNull();
  });

  it("writes a stored transcript over what this machine has, byte for byte", async () => {
    const stale = join(configDir, "projects", "-work-a");
    await mkdir(stale, { recursive: true });
    await writeFile(join(stale, `${SESSION}.jsonl`), '{"stored":1}\n{"failed turn":2}\n');
    const stored = { sessionId: SESSION, projectDir: "-work-a", content: '{"stored":1}\nž\n' };
    expect(await writeRuntimeTranscript(configDir, stored)).toBe(true);
    expect(await readFile(join(stale, `${SESSION}.jsonl`), "utf8")).toBe(stored.content);
    expect(await readRuntimeTranscript(configDir, SESSION)).toEqual(stored);
    // No temporary file is left beside it.
    expect(await readdir(stale)).toEqual([`${SESSION}.jsonl`]);
  });

  test.prop([
    fc.oneof(
      fc.constantFrom(".", "..", "a/b", "../x", "a\\b", "a\0b", ""),
      fc.string().filter((s) => /[/\\\0]/.test(s)),
    ),
    fc.oneof(
      fc.constant(SESSION),
      fc.string().filter((s) => !/^[0-9a-f-]{8,64}$/i.test(s)),
    ),
  ])("never writes outside <config>/projects/<folder> for hostile names", async (folder, id) => {
    const written = await writeRuntimeTranscript(configDir, {
      sessionId: id,
      projectDir: folder,
      content: "x",
    });
    expect(written).toBe(false);
    expect(await readdir(configDir)).toEqual([]);
  });
});

describe("planTranscriptWrite", () => {
  const file = (content: string, sessionId = SESSION, projectDir = "-w") => ({
    sessionId,
    projectDir,
    content,
  });
  const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

  it("appends what was added to the very copy that is stored, and marks the whole file", () => {
    const first = planTranscriptWrite(null, file("a\nž🦀\n"));
    expect(first).toEqual({
      append: null,
      mark: { sessionId: SESSION, projectDir: "-w", length: 6, sha256: sha("a\nž🦀\n") },
    });
    const second = planTranscriptWrite(first.mark, file("a\nž🦀\nb\n"));
    expect(second).toEqual({
      append: "b\n",
      mark: { ...first.mark, length: 8, sha256: sha("a\nž🦀\nb\n") },
    });
    expect(planTranscriptWrite(second.mark, file("a\nž🦀\nb\n")).append).toBe("");
  });

  it("stores it whole when the file no longer begins with the stored copy", () => {
    const { mark } = planTranscriptWrite(null, file("a\nb\n"));
    expect(planTranscriptWrite(mark, file("x\nb\nc\n")).append).toBeNull();
    expect(planTranscriptWrite(mark, file("a\n")).append).toBeNull();
    expect(planTranscriptWrite(mark, file("a\nb\nc\n", "1111aaaa")).append).toBeNull();
    expect(planTranscriptWrite(mark, file("a\nb\nc\n", SESSION, "-other")).append).toBeNull();
  });

  test.prop([fc.string(), fc.string(), fc.string()])(
    "an append applied to the stored copy gives the file, and the mark is always the file's",
    (stored, added, other) => {
      const before = planTranscriptWrite(null, file(stored));
      const next = planTranscriptWrite(before.mark, file(stored + added));
      expect(next.append).toBe(added);
      expect(next.mark.sha256).toBe(sha(stored + added));
      const changed = planTranscriptWrite(before.mark, file(other));
      if (changed.append !== null) expect(stored + changed.append).toBe(other);
      expect(changed.mark).toEqual(planTranscriptWrite(null, file(other)).mark);
    },
  );
});
