import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, test } from "@fast-check/vitest";
import { afterAll, describe, expect, it } from "vitest";
import {
  removeStaleTemporaryFiles,
  writeFileIfChanged,
  writeFilesIfChanged,
} from "./write-if-changed.ts";

const root = mkdtempSync(join(tmpdir(), "talkide-be-write-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("writeFilesIfChanged", () => {
  it("writes only the files whose bytes differ, in the order given, and says which", async () => {
    const dir = mkdtempSync(join(root, "several-"));
    const files = [
      { path: join(dir, "CLAUDE.md"), content: "# Projekt\n" },
      { path: join(dir, ".talkide", "active-writer.md"), content: "# Aktuálně píše\nAnna\n" },
      { path: join(dir, ".talkide", "project.yml"), content: "ports: {}\n" },
    ];
    expect((await writeFilesIfChanged(files)).map((f) => f.written)).toEqual([true, true, true]);
    const past = new Date("2020-01-01T00:00:00Z");
    for (const file of files) utimesSync(file.path, past, past);
    const order: string[] = [];
    const changed = files.map((file, i) =>
      i === 0 ? file : { ...file, content: `${file.content}# změna\n` },
    );
    const rewritten = await writeFilesIfChanged(changed, {
      beforeWrite: (target) => {
        order.push(target);
        return Promise.resolve();
      },
    });
    expect(rewritten.map((f) => f.written)).toEqual([false, true, true]);
    // What each file held before, for the caller to compare with (changed-sections.ts).
    expect(rewritten.map((f) => f.previous?.toString("utf8"))).toEqual(
      files.map((file) => file.content),
    );
    expect(order).toEqual([files[1]?.path, files[2]?.path]);
    expect(statSync(files[0]?.path ?? "").mtime.toISOString()).toBe(past.toISOString());
    for (const file of changed) expect(readFileSync(file.path, "utf8")).toBe(file.content);
    expect((await writeFilesIfChanged(changed)).map((f) => f.written)).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe("writeFileIfChanged", () => {
  it("creates missing directories, writes new bytes, and leaves equal bytes and their mtime alone", async () => {
    const target = join(root, "a", ".talkide", "active-writer.md");
    expect(await writeFileIfChanged(target, "# Aktuálně píše\nAnna\n")).toBe(true);
    const past = new Date("2020-01-01T00:00:00Z");
    utimesSync(target, past, past);
    expect(await writeFileIfChanged(target, "# Aktuálně píše\nAnna\n")).toBe(false);
    expect(statSync(target).mtime.toISOString()).toBe(past.toISOString());
    expect(await writeFileIfChanged(target, "# Aktuálně píše\nBob\n")).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("# Aktuálně píše\nBob\n");
    expect(statSync(target).mtime.getTime()).toBeGreaterThan(past.getTime());
  });

  it("rewrites a file whose bytes differ only in normalization or a trailing newline", async () => {
    const target = join(root, "nfc.md");
    writeFileSync(target, "Cafe\u0301\n");
    expect(await writeFileIfChanged(target, "Caf\u00e9\n")).toBe(true);
    expect(await writeFileIfChanged(target, "Caf\u00e9")).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("Caf\u00e9");
  });

  test.prop(
    [fc.array(fc.string({ unit: "grapheme", maxLength: 300 }), { minLength: 1, maxLength: 8 })],
    {
      numRuns: 200,
    },
  )(
    "ends with the last content, reports changes exactly, and leaves no temporary file",
    async (contents) => {
      const dir = mkdtempSync(join(root, "prop-"));
      const target = join(dir, "CLAUDE.md");
      let previous: string | null = null;
      for (const content of contents) {
        expect(await writeFileIfChanged(target, content)).toBe(previous !== content);
        previous = content;
      }
      expect(readFileSync(target, "utf8")).toBe(contents.at(-1));
      expect(readdirSync(dir)).toEqual(["CLAUDE.md"]);
    },
  );
});

describe("removeStaleTemporaryFiles", () => {
  it("removes only the temporary files of the given targets", async () => {
    const dir = mkdtempSync(join(root, "stale-"));
    for (const name of [
      "CLAUDE.md",
      "CLAUDE.md.123456",
      "CLAUDE.md.bak",
      "notes.md.42",
      "CLAUDE.md.12x",
    ]) {
      writeFileSync(join(dir, name), "x");
    }
    const removed = await removeStaleTemporaryFiles([
      join(dir, "CLAUDE.md"),
      join(root, "missing", "CLAUDE.md"),
    ]);
    expect(removed).toEqual([join(dir, "CLAUDE.md.123456")]);
    expect(readdirSync(dir).sort()).toEqual([
      "CLAUDE.md",
      "CLAUDE.md.12x",
      "CLAUDE.md.bak",
      "notes.md.42",
    ]);
  });
});
