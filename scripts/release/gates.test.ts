import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, test } from "vitest";
import { changedExpectedFiles, checkReleaseGates, summarizeCaseChanges } from "./gates.ts";

// The gates against small throwaway repositories: one published spec package, one published
// implementation, one private package, released once by a commit that sets their versions.

const repos: string[] = [];
afterEach(() => {
  for (const dir of repos.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function manifest(hash: string): string {
  return `${JSON.stringify({ specVersion: "1.0.0", suites: { "claude-md": { cases: { basic: { "expected.md": hash } } } } }, null, 2)}\n`;
}

function pkg(name: string, version: string, extra: object = {}): string {
  return `${JSON.stringify({ name, version, ...extra }, null, 2)}\n`;
}

/** A repository whose last commit is a release of all packages at `specVersion` / 1.2.0. */
async function releasedRepo(specVersion = "0.3.0"): Promise<{
  dir: string;
  write: (path: string, text: string) => void;
  commit: (message: string) => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), "talkide-gates-"));
  repos.push(dir);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const git = (...args: string[]) =>
    execa(
      "git",
      [
        "-c",
        "user.name=Gate Test",
        "-c",
        "user.email=gates@localhost",
        "-c",
        "commit.gpgsign=false",
        ...args,
      ],
      { cwd: dir, stdin: "ignore" },
    );
  const commit = async (message: string) => {
    await git("add", "--all");
    await git("commit", "--quiet", "--allow-empty", "-m", message);
  };
  await git("init", "--quiet", "--initial-branch=main");
  write("package.json", pkg("root", "0.0.0", { private: true }));
  write(".changeset/README.md", "# Changesets\n");
  write("packages/context-spec/package.json", pkg("@talkide/context-spec", "0.0.0"));
  write("packages/context-spec/manifest.json", manifest("aaa"));
  write("packages/context-spec/cases/claude-md/basic/expected.md", "bytes\n");
  write("packages/context-spec/src/index.ts", "export const a = 1;\n");
  write("packages/renderer/package.json", pkg("@talkide/renderer", "0.0.0"));
  write("packages/renderer/src/index.ts", "export const r = 1;\n");
  write("packages/internal/package.json", pkg("@talkide/internal", "0.0.0", { private: true }));
  write("packages/internal/src/index.ts", "export const i = 1;\n");
  await commit("first");
  write("packages/context-spec/package.json", pkg("@talkide/context-spec", specVersion));
  write("packages/renderer/package.json", pkg("@talkide/renderer", "1.2.0"));
  await commit("release");
  return { dir, write, commit };
}

function changeset(releases: Record<string, string>, summary = "A change."): string {
  const lines = Object.entries(releases).map(([name, bump]) => `"${name}": ${bump}`);
  return ["---", ...lines, "---", "", summary, ""].join("\n");
}

describe("changeset gate", () => {
  test("nothing changed since the release passes", async () => {
    const repo = await releasedRepo();
    expect((await checkReleaseGates(repo.dir)).problems).toEqual([]);
  });

  test("a committed src change without a changeset fails and names the package and file", async () => {
    const repo = await releasedRepo();
    repo.write("packages/renderer/src/index.ts", "export const r = 2;\n");
    await repo.commit("change");
    const { problems } = await checkReleaseGates(repo.dir);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("@talkide/renderer");
    expect(problems[0]).toContain("packages/renderer/src/index.ts");
    expect(problems[0]).toContain("pnpm changeset");
  });

  test("an uncommitted new spec page without a changeset fails too", async () => {
    const repo = await releasedRepo();
    repo.write("packages/context-spec/spec/new-page.md", "# New\n");
    const { problems } = await checkReleaseGates(repo.dir);
    expect(problems.join("\n")).toContain("packages/context-spec/spec/new-page.md");
  });

  test("a patch changeset for the package lets a src change pass", async () => {
    const repo = await releasedRepo();
    repo.write("packages/renderer/src/index.ts", "export const r = 2;\n");
    repo.write(".changeset/fix.md", changeset({ "@talkide/renderer": "patch" }));
    await repo.commit("change with changeset");
    expect((await checkReleaseGates(repo.dir)).problems).toEqual([]);
  });

  test("a changeset for another package does not count", async () => {
    const repo = await releasedRepo();
    repo.write("packages/renderer/src/index.ts", "export const r = 2;\n");
    repo.write(".changeset/fix.md", changeset({ "@talkide/context-spec": "patch" }));
    const { problems } = await checkReleaseGates(repo.dir);
    expect(problems.join("\n")).toContain("@talkide/renderer");
  });

  test("tests, test support and private packages are not gated", async () => {
    const repo = await releasedRepo();
    repo.write("packages/renderer/src/index.test.ts", "// test\n");
    repo.write("packages/renderer/src/test-support/helper.ts", "export {};\n");
    repo.write("packages/internal/src/index.ts", "export const i = 2;\n");
    await repo.commit("tests only");
    expect((await checkReleaseGates(repo.dir)).problems).toEqual([]);
  });

  test("the release point moves with the next version commit", async () => {
    const repo = await releasedRepo();
    repo.write("packages/renderer/src/index.ts", "export const r = 2;\n");
    repo.write("packages/renderer/package.json", pkg("@talkide/renderer", "1.2.1"));
    await repo.commit("change and release together");
    expect((await checkReleaseGates(repo.dir)).problems).toEqual([]);
  });

  test("a shallow clone is refused with what to do", async () => {
    const repo = await releasedRepo();
    const shallow = mkdtempSync(join(tmpdir(), "talkide-gates-shallow-"));
    repos.push(shallow);
    await execa("git", ["clone", "--quiet", "--depth", "1", `file://${repo.dir}`, shallow]);
    const { problems } = await checkReleaseGates(shallow);
    expect(problems.join("\n")).toContain("git fetch --unshallow");
  });
});

describe("breaking-bump gate for changed expected bytes", () => {
  test.each([
    ["0.3.0", "patch", false],
    ["0.3.0", "minor", true],
    ["0.3.0", "major", true],
    ["1.0.0", "minor", false],
    ["1.0.0", "major", true],
  ])("context-spec at %s with a %s changeset: passes = %s", async (version, bump, passes) => {
    const repo = await releasedRepo(version);
    repo.write("packages/context-spec/cases/claude-md/basic/expected.md", "other bytes\n");
    repo.write("packages/context-spec/manifest.json", manifest("bbb"));
    repo.write(".changeset/bytes.md", changeset({ "@talkide/context-spec": bump }));
    await repo.commit("bytes");
    const { problems } = await checkReleaseGates(repo.dir);
    if (passes) expect(problems).toEqual([]);
    else {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain("claude-md/basic/expected.md (changed)");
      expect(problems[0]).toContain(
        version.startsWith("0.") ? "at least a minor" : "at least a major",
      );
    }
  });

  test("changed bytes with no changeset at all fail both gates", async () => {
    const repo = await releasedRepo();
    repo.write("packages/context-spec/cases/claude-md/basic/expected.md", "other bytes\n");
    repo.write("packages/context-spec/manifest.json", manifest("bbb"));
    const { problems } = await checkReleaseGates(repo.dir);
    expect(problems).toHaveLength(2);
  });
});

describe("changedExpectedFiles", () => {
  test("reports changed, added and removed files, and every file of a package never released", () => {
    const released = JSON.stringify({
      suites: { s: { cases: { a: { "expected.md": "1" }, b: { "expected.md": "2" } } } },
    });
    const current = JSON.stringify({
      suites: { s: { cases: { a: { "expected.md": "9" }, c: { "expected-error.json": "3" } } } },
    });
    expect(changedExpectedFiles(released, current)).toEqual([
      "s/a/expected.md (changed)",
      "s/b/expected.md (removed)",
      "s/c/expected-error.json (added)",
    ]);
    expect(changedExpectedFiles(null, current)).toEqual([
      "s/a/expected.md (added)",
      "s/c/expected-error.json (added)",
    ]);
    expect(changedExpectedFiles(current, current)).toEqual([]);
  });
});

describe("summarizeCaseChanges", () => {
  test("groups cases by suite and kind of change, each case once", () => {
    expect(
      summarizeCaseChanges([
        "claude-md-split/x/expected.CLAUDE.md (changed)",
        "claude-md-split/x/expected.active-writer.md (changed)",
        "claude-md/b/expected.md (added)",
        "claude-md/a/expected-error.json (added)",
        "claude-md/c/expected.md (removed)",
      ]),
    ).toEqual(["claude-md: 2 added (a, b); 1 removed (c)", "claude-md-split: 1 changed (x)"]);
  });
});
