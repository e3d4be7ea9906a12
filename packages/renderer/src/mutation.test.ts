import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { fc } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "./test-support/conformance.ts";

/**
 * The cases pin every byte of the renderer's static text: a copy of the renderer whose
 * template has one byte flipped must fail the conformance run with wrong bytes (not crash).
 * A control run of the unchanged copy shows the copy itself works.
 */

// TypeScript is CommonJS with `export =` typings: load it as such.
const ts = createRequire(import.meta.url)("typescript") as typeof import("typescript");

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Valid cases only: an error case never shows the static text. */
const CASES = [
  "--include",
  "worked-example",
  "--include",
  "single-member-minimal",
  "--include",
  "team-briefing-hostile-markdown",
];

let copyDir: string;
let templateFile: string;
let pristine: Buffer;

beforeAll(() => {
  copyDir = mkdtempSync(path.join(tmpdir(), "talkide-renderer-mutant-"));
  cpSync(path.join(PACKAGE_DIR, "src"), path.join(copyDir, "src"), { recursive: true });
  cpSync(path.join(PACKAGE_DIR, "package.json"), path.join(copyDir, "package.json"));
  // The copy resolves zod, commander and @talkide/privacy through the package's own links.
  symlinkSync(path.join(PACKAGE_DIR, "node_modules"), path.join(copyDir, "node_modules"), "dir");
  // The static text, generated from the spec page; template.ts cuts it at the placeholders.
  templateFile = path.join(copyDir, "src", "template-text.generated.ts");
  pristine = readFileSync(templateFile);
});

afterAll(() => {
  rmSync(copyDir, { recursive: true, force: true });
});

/**
 * Offsets of the ASCII letters inside the string literals of a TypeScript source (comments and
 * code excluded), found with the TypeScript scanner. Flipping the case of one of them changes
 * exactly one byte of the file.
 */
function staticTextLetterOffsets(source: string): number[] {
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    true,
    ts.LanguageVariant.Standard,
    source,
  );
  const literalKinds = new Set([
    ts.SyntaxKind.StringLiteral,
    ts.SyntaxKind.NoSubstitutionTemplateLiteral,
    ts.SyntaxKind.TemplateHead,
    ts.SyntaxKind.TemplateMiddle,
    ts.SyntaxKind.TemplateTail,
  ]);
  const offsets: number[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.CloseBraceToken) kind = scanner.reScanTemplateToken(false);
    if (!literalKinds.has(kind)) continue;
    const start = scanner.getTokenStart();
    const text = scanner.getTokenText();
    for (let i = 1; i < text.length - 1; i++) {
      if (/[A-Za-z]/u.test(text[i] ?? "") && text[i - 1] !== "\\") offsets.push(start + i);
    }
  }
  return offsets;
}

/** The source with the letter at `offset` in the other case: one byte changed. */
function flipCase(source: string, offset: number): string {
  const letter = source[offset] ?? "";
  const flipped = letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase();
  return source.slice(0, offset) + flipped + source.slice(offset + 1);
}

describe("mutation of the renderer's static text", () => {
  it("the unchanged copy passes (control)", () => {
    const run = runConformance(
      "claude-md",
      path.join(copyDir, "src", "bin", "render.ts"),
      [],
      CASES,
    );
    expect(run.cases.map((c) => c.status)).toEqual(["pass", "pass", "pass"]);
  });

  it("one flipped byte in the welcome block fails the cases", () => {
    const welcome = pristine.indexOf(Buffer.from("Ty jsi reálná Mara"));
    expect(welcome).toBeGreaterThan(0);
    const mutant = Buffer.from(pristine);
    mutant[welcome] = (mutant[welcome] ?? 0) ^ 0x01; // "T" → "U"
    writeFileSync(templateFile, mutant);
    try {
      const run = runConformance(
        "claude-md",
        path.join(copyDir, "src", "bin", "render.ts"),
        [],
        CASES,
      );
      expect(run.exitCode).toBe(1);
      expect(run.cases.map((c) => c.status)).toEqual(["fail", "fail", "fail"]);
    } finally {
      writeFileSync(templateFile, pristine);
    }
  });

  it("one flipped byte anywhere in the static text fails the cases", () => {
    const source = pristine.toString("utf8");
    const offsets = staticTextLetterOffsets(source);
    expect(offsets.length).toBeGreaterThan(1000);
    for (const offset of fc.sample(fc.constantFrom(...offsets), { numRuns: 3 })) {
      writeFileSync(templateFile, flipCase(source, offset));
      try {
        const bin = path.join(copyDir, "src", "bin", "render.ts");
        const single = runConformance("claude-md", bin, [], CASES);
        const split = runConformance(
          "claude-md-split",
          bin,
          ["--layout", "split", "--file", "{output}"],
          ["--include", "worked-example"],
        );
        // Wrong bytes ("fail") for rendered text; a mutated file name can also make the bin
        // refuse its own arguments ("error"). Either way the run, and so CI, fails.
        const context = `offset ${String(offset)}: …${source.slice(Math.max(0, offset - 24), offset + 24)}…`;
        expect([single.exitCode, split.exitCode], context).toContain(1);
        expect(
          [...single.cases, ...split.cases].some((c) => c.status !== "pass"),
          context,
        ).toBe(true);
      } finally {
        writeFileSync(templateFile, pristine);
      }
    }
  });
});
