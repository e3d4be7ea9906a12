// Altering any single byte of the spec template or of an expected file makes CI fail:
// shown on a copy of the package, with the same check functions the CI tests call.
// The same copy also walks the re-blessing workflow: update → pending → bless → clean.

import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blessCase } from "./bless.ts";
import { checkPackage } from "./check.ts";
import { checkDrift } from "./drift.ts";
import { checkExamples } from "./examples.ts";
import { PACKAGE_ROOT } from "./package-root.ts";
import { updateCases } from "./update.ts";

const SUITES = ["claude-md", "claude-md-split"];
let copy: string;

beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), "talkide-context-spec-"));
  cpSync(PACKAGE_ROOT, copy, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist)$/u.test(source),
  });
});

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

/** Every CI finding for the CLAUDE.md suites on the copy. */
function findings(): string[] {
  const check = checkPackage(copy);
  return [
    ...SUITES.flatMap((suite) => [...(check.suites[suite] ?? []), ...checkDrift(copy, suite)]),
    ...checkExamples(copy, ["spec/claude-md.md"]).problems,
  ];
}

/** Runs fn with one byte of file replaced, then puts the file back. */
function withFlippedByte(file: string, offset: number, fn: () => void): void {
  const original = readFileSync(file);
  const mutated = Buffer.from(original);
  const byte = mutated[offset] ?? 0;
  // Stay within ASCII so the file remains UTF-8 where it was ASCII; change multi-byte
  // sequences by their first byte's low bit, which still changes the text.
  mutated[offset] =
    byte === 0x0a ? 0x20 : byte < 0x80 ? (byte === 0x41 ? 0x42 : 0x41) : byte ^ 0x01;
  writeFileSync(file, mutated);
  try {
    fn();
  } finally {
    writeFileSync(file, original);
  }
}

describe("mutations of a copy make the checks fail", () => {
  it("the unmutated copy is clean", () => {
    expect(findings()).toEqual([]);
  });

  it("flipping the first byte of any line of the spec template fails the drift check", () => {
    const spec = path.join(copy, "spec/claude-md.md");
    const text = readFileSync(spec);
    const start = text.indexOf("```template\n") + "```template\n".length;
    const end = text.indexOf("\n```\n", start) + 1;
    const lineStarts = [start];
    for (let offset = start; offset < end - 1; offset++)
      if (text[offset] === 0x0a) lineStarts.push(offset + 1);
    expect(lineStarts.length).toBeGreaterThan(40);
    const undetected = lineStarts.filter((offset) => {
      let problems: string[] = [];
      withFlippedByte(spec, offset, () => {
        problems = SUITES.flatMap((suite) => checkDrift(copy, suite));
      });
      return problems.length === 0;
    });
    expect(undetected).toEqual([]);
  });

  it.each(["Název", "přivítala", "—"])(
    "flipping a byte of %s inside the template fails the drift check",
    (word) => {
      const spec = path.join(copy, "spec/claude-md.md");
      const text = readFileSync(spec);
      const offset = text.indexOf(Buffer.from(word), text.indexOf("```template\n"));
      withFlippedByte(spec, offset + Buffer.byteLength(word) - 1, () => {
        expect(checkDrift(copy, "claude-md")).not.toEqual([]);
      });
    },
  );

  it.each([
    ["claude-md/worked-example/expected.md", 0],
    ["claude-md/worked-example/expected.md", "middle"],
    ["claude-md/worked-example/expected.md", "last"],
    ["claude-md/team-briefing-hostile-markdown/expected.md", "middle"],
    ["claude-md-split/worked-example/expected.active-writer.md", 2],
    ["claude-md/team-empty/expected-error.json", 10],
  ] as const)("flipping a byte of %s at %s fails the hash and drift checks", (relative, where) => {
    const file = path.join(copy, "cases", relative);
    const size = readFileSync(file).length;
    const offset = where === "middle" ? Math.floor(size / 2) : where === "last" ? size - 1 : where;
    withFlippedByte(file, offset, () => {
      const suite = relative.split("/")[0] ?? "";
      const check = checkPackage(copy);
      expect(check.suites[suite]?.join("\n")).toMatch(/hash mismatch|must be exactly|not JSON/u);
      const drift = checkDrift(copy, suite);
      if (!relative.endsWith(".json") || drift.length > 0) expect(drift).not.toEqual([]);
    });
  });

  it("a drifted example block in the spec page fails the example check", () => {
    const spec = path.join(copy, "spec/claude-md.md");
    const text = readFileSync(spec);
    const block = text.indexOf("```example claude-md/worked-example\n");
    withFlippedByte(spec, text.indexOf("Jirka", block), () => {
      expect(checkExamples(copy, ["spec/claude-md.md"]).problems).toHaveLength(1);
    });
  });
});

describe("re-blessing on a copy", () => {
  const caseDir = (): string => path.join(copy, "cases/claude-md/url-present");

  it("reports a missing expected file, writes it as .new in update mode, and blesses it", async () => {
    const expected = path.join(caseDir(), "expected.md");
    const bytes = readFileSync(expected);
    unlinkSync(expected);
    expect(findings().join("\n")).toMatch(/url-present has no expected file/u);

    const report = await updateCases(copy, { kind: "interpreter" }, ["claude-md"]);
    expect(report.written).toEqual(["cases/claude-md/url-present/expected.md.new"]);
    expect(report.problems).toEqual([]);
    expect(findings().join("\n")).toMatch(/expected\.md\.new is pending/u);

    blessCase(copy, "claude-md/url-present");
    expect(readFileSync(expected)).toEqual(bytes);
    expect(findings()).toEqual([]);
  });

  it("renders .new with any runner-protocol command and leaves equal bytes alone", async () => {
    const render = fileURLToPath(new URL("../bin/render.ts", import.meta.url));
    const expected = path.join(
      copy,
      "cases/claude-md-split/worked-example/expected.active-writer.md",
    );
    writeFileSync(expected, "# Aktuálně píše\nJirka\n");
    const report = await updateCases(
      copy,
      {
        kind: "command",
        implementation: {
          command: process.execPath,
          args: [
            "--conditions=@talkide/source",
            render,
            "--root",
            copy,
            "--suite",
            "claude-md-split",
            "--output",
            "{output}",
          ],
          timeoutMs: 60_000,
        },
      },
      ["claude-md-split"],
    );
    expect(report.written).toEqual([
      "cases/claude-md-split/worked-example/expected.active-writer.md.new",
    ]);
    expect(readFileSync(`${expected}.new`, "utf8")).toBe("# Aktuálně píše\nAnna\n");
    blessCase(copy, "claude-md-split/worked-example");
    expect(findings()).toEqual([]);
  });

  it("reports orphaned files and refuses to bless a case with nothing pending", () => {
    const orphan = path.join(caseDir(), "notes.txt");
    writeFileSync(orphan, "scratch\n");
    expect(findings().join("\n")).toMatch(/notes\.txt is an orphaned file/u);
    unlinkSync(orphan);
    expect(() => blessCase(copy, "claude-md/url-present")).toThrow(/nothing pending/u);
  });

  it("an error expectation replaces bytes when blessed, and the other way round", async () => {
    const state = path.join(caseDir(), "state.json");
    const original = readFileSync(state);
    writeFileSync(state, original.toString("utf8").replace('"Anna"', '"# Anna"'));
    await updateCases(copy, { kind: "interpreter" }, ["claude-md"]);
    blessCase(copy, "claude-md/url-present");
    expect(readFileSync(path.join(caseDir(), "expected-error.json"), "utf8")).toBe(
      '{"code":"invalid_field","path":"team[0].salutation"}\n',
    );
    writeFileSync(state, original);
    await updateCases(copy, { kind: "interpreter" }, ["claude-md"]);
    blessCase(copy, "claude-md/url-present");
    expect(findings()).toEqual([]);
  });
});
