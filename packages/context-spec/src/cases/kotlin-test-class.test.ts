import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { currentCases } from "../report/build.ts";
import { checkPackage } from "./check.ts";
import { KOTLIN_TEST_CLASS_FILE, kotlinLiteral, kotlinTestClassOf } from "./kotlin-test-class.ts";
import { PACKAGE_ROOT } from "./package-root.ts";

const CLASS = readFileSync(join(PACKAGE_ROOT, KOTLIN_TEST_CLASS_FILE), "utf8");

/** Kotlin's escapes of kotlinLiteral, read back: \$ is Kotlin's own, the rest are JSON's. */
function readLiteral(literal: string): string {
  return JSON.parse(literal.replaceAll("\\$", "$")) as string;
}

describe("kotlin/MaraContextRendererTestCases.kt", () => {
  it("is checked in exactly as the cases generate it (regenerating changes nothing)", () => {
    expect(CLASS === kotlinTestClassOf(PACKAGE_ROOT)).toBe(true);
  });

  it("has one test per CLAUDE.md case, named after it", () => {
    const names = [...CLASS.matchAll(/^ {2}fun `([a-z0-9-]+) ([a-z0-9-]+)`\(\) =$/gmu)].map(
      (match) => `${match[1] ?? ""}/${match[2] ?? ""}`,
    );
    expect(names.sort()).toEqual(currentCases());
    expect(CLASS.match(/^ {2}@Test$/gmu)).toHaveLength(names.length);
  });

  it("is printable ASCII and line feeds only, so no editor or checkout can change a byte", () => {
    expect(/^[\x20-\x7e\n]*$/u.test(CLASS)).toBe(true);
  });

  it("embeds every case's input and expected bytes exactly", () => {
    const literals = [...CLASS.matchAll(/^ +("(?:[^"\\]|\\.)*"),$/gmu)].map((match) =>
      readLiteral(match[1] ?? ""),
    );
    const embedded = literals.join("");
    const index = JSON.parse(readFileSync(join(PACKAGE_ROOT, "test-cases.json"), "utf8")) as {
      cases: { suite: string; input: string; outputs: { expected: string }[] }[];
    };
    for (const entry of index.cases.filter((c) => c.suite.startsWith("claude-md")))
      for (const file of [entry.input, ...entry.outputs.map((output) => output.expected)])
        expect(embedded).toContain(readFileSync(join(PACKAGE_ROOT, file), "utf8"));
  });

  it("writes literals Kotlin reads back as the same text", () => {
    for (const text of ['a"b\\c$d{e}', "line\nnext\r\n", "\u00a0\u0301\u202e", "😀", "\ud800x", ""])
      expect(readLiteral(kotlinLiteral(text))).toBe(text);
    expect(kotlinLiteral("$x")).toBe('"\\$x"');
  });

  it("fails talkide-spec check when it differs from a fresh generation", () => {
    const copy = mkdtempSync(join(tmpdir(), "talkide-kotlin-class-"));
    try {
      for (const entry of ["cases", "spec", "kotlin", "manifest.json", "test-cases.json"])
        cpSync(join(PACKAGE_ROOT, entry), join(copy, entry), { recursive: true });
      expect(checkPackage(copy).global).toEqual([]);
      writeFileSync(join(copy, KOTLIN_TEST_CLASS_FILE), CLASS.replace("0", "1"));
      expect(checkPackage(copy).global).toEqual([
        `${KOTLIN_TEST_CLASS_FILE} is stale (its bytes differ from a fresh index): review the change, then run \`pnpm --filter @talkide/context-spec run cases:index\`.`,
      ]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
