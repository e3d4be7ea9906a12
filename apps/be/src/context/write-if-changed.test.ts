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
import { removeStaleTemporaryFiles, writeFileIfChanged } from "./write-if-changed.ts";

const root = mkdtempSync(join(tmpdir(), "talkide-be-write-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
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
