// CI for the case files: reads only, never writes. Each suite is its own test, so a suite
// that another team is still writing fails alone and names its own problems.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SPEC_VERSION } from "../spec-version.ts";
import { checkPackage } from "./check.ts";
import { checkDrift } from "./drift.ts";
import { checkExamples, specPages } from "./examples.ts";
import { loadCases } from "./load.ts";
import { PACKAGE_ROOT } from "./package-root.ts";
import { listSuiteNames } from "./scan.ts";

const suites = listSuiteNames(PACKAGE_ROOT);
const check = checkPackage(PACKAGE_ROOT);

describe("case files", () => {
  it("has no stray files under cases/ and fresh manifest.json / test-cases.json", () => {
    expect(check.global).toEqual([]);
  });

  it.each(suites)(
    "suite %s: no missing, orphaned or pending files; index entries match the bytes",
    (suite) => {
      expect(check.suites[suite]).toEqual([]);
    },
  );
});

describe("spec drift", () => {
  it.each(suites)(
    "suite %s: the spec template, run by the reference interpreter, gives every expected file",
    (suite) => {
      expect(checkDrift(PACKAGE_ROOT, suite)).toEqual([]);
    },
  );

  it.each(specPages(PACKAGE_ROOT))(
    "%s: every example and input block equals the case file it names",
    (page) => {
      expect(checkExamples(PACKAGE_ROOT, [page]).problems).toEqual([]);
    },
  );

  it("spec/claude-md.md holds executable examples", () => {
    expect(checkExamples(PACKAGE_ROOT, ["spec/claude-md.md"]).blocks).toBeGreaterThanOrEqual(2);
  });
});

describe("the CLAUDE.md suite covers the contract", () => {
  const cases = loadCases("claude-md");
  const errorCodes = cases.flatMap((c) =>
    c.expectation.kind === "error" ? [c.expectation.error.code] : [],
  );

  it("has at least 40 cases, valid and invalid", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(cases.filter((c) => c.expectation.kind === "bytes").length).toBeGreaterThanOrEqual(20);
  });

  it("pins every error code of the contract", () => {
    expect(new Set(errorCodes)).toEqual(
      new Set([
        "forbidden_field",
        "unknown_field",
        "missing_field",
        "invalid_field",
        "duplicate_member",
        "unknown_active_member",
        "empty_team",
      ]),
    );
  });

  it("holds the 24 welcome lines of the seed byte for byte", () => {
    const expected = readFileSync(
      path.join(PACKAGE_ROOT, "cases/claude-md/worked-example/expected.md"),
      "utf8",
    );
    const lines = expected.split("\n");
    const start = lines.indexOf("# Welcome instrukce") + 1;
    const end = lines.indexOf("# Tým") - 1;
    const welcome = `${lines.slice(start, end).join("\n")}\n`;
    expect(end - start).toBe(24);
    // sha256 of the 24 lines as extracted from the seed page (000_*.txt) when this package was written.
    expect(sha256(welcome)).toBe(WELCOME_SHA256);
  });
});

describe("spec/README.md", () => {
  it.each(specPages(PACKAGE_ROOT).filter((page) => page !== "spec/README.md"))(
    "links %s from its index",
    (page) => {
      expect(readFileSync(path.join(PACKAGE_ROOT, "spec/README.md"), "utf8")).toContain(
        `](${path.basename(page)})`,
      );
    },
  );
});

describe("spec version", () => {
  it("is the same in the code, the index files and spec/README.md", () => {
    const manifest = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "manifest.json"), "utf8")) as {
      specVersion: string;
    };
    const testCases = JSON.parse(
      readFileSync(path.join(PACKAGE_ROOT, "test-cases.json"), "utf8"),
    ) as { specVersion: string };
    expect(manifest.specVersion).toBe(SPEC_VERSION);
    expect(testCases.specVersion).toBe(SPEC_VERSION);
    expect(readFileSync(path.join(PACKAGE_ROOT, "spec/README.md"), "utf8")).toContain(
      `Spec version: **${SPEC_VERSION}**`,
    );
  });
});

const WELCOME_SHA256 = "a7efd89960424fc7d296797a2b70007e6d8ac6a9e6702f794aadbf1efa2e3f3d";

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
