import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport, currentCases } from "./build.ts";
import { diffResults } from "./diff.ts";
import { escapeHtml, visibleLabel } from "./escape.ts";
import { mergeRunResults, readRunResult, type RunResult } from "./result.ts";
import { BROKEN_CASE, twoRuntimes, type TwoRuntimes } from "./test-support/two-runtimes.ts";

const REPORT_BIN = fileURLToPath(new URL("../bin/report.ts", import.meta.url));

function reportCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, ["--conditions=@talkide/source", REPORT_BIN, ...args], {
    encoding: "utf8",
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

let runs: TwoRuntimes;
let reference: RunResult;
let broken: RunResult;
beforeAll(async () => {
  runs = await twoRuntimes();
  reference = readRunResult(runs.reference);
  broken = readRunResult(runs.broken);
}, 120_000);
afterAll(() => {
  rmSync(runs.dir, { recursive: true, force: true });
});

describe("result files", () => {
  it("hold every CLAUDE.md case of both suites, joined from two runner calls", () => {
    expect(reference.cases.map((entry) => `${entry.suite}/${entry.id}`).sort()).toEqual(
      currentCases(),
    );
    expect([reference.passed, reference.failed]).toEqual([currentCases().length, 0]);
    expect(reference.suites).toEqual(["claude-md", "claude-md-split"]);
  });

  it("carry hashes for a pass and the full text only for a failure", () => {
    const pass = reference.cases.find((entry) => `${entry.suite}/${entry.id}` === BROKEN_CASE);
    const sha = pass?.outputs[0]?.expectedSha256 ?? "";
    expect(sha).toMatch(/^[0-9a-f]{64}$/u);
    expect(pass?.outputs[0]).toEqual({ arg: "", expectedSha256: sha, actualSha256: sha });
    const fail = broken.cases.find((entry) => `${entry.suite}/${entry.id}` === BROKEN_CASE);
    const output = fail?.outputs[0];
    expect(fail?.status).toBe("fail");
    expect(output?.actualSha256).not.toBe(output?.expectedSha256);
    expect(typeof output?.expected).toBe("string");
    expect(output?.actual).toBe((output?.expected as string).replace(" ", "\u00a0"));
    expect([broken.passed, broken.failed]).toEqual([currentCases().length - 1, 1]);
  });

  it("of another build replace the file instead of joining it", () => {
    const other = { ...broken, implementation: { ...broken.implementation, commit: "fedcba" } };
    expect(mergeRunResults(reference, other)).toBe(other);
  });
});

describe("talkide-conformance-report diff", () => {
  it("names the one case that broke, and nothing else", () => {
    expect(diffResults(reference, broken)).toEqual([`broken: ${BROKEN_CASE} (pass → fail)`]);
    expect(diffResults(broken, reference)).toEqual([`fixed: ${BROKEN_CASE} (fail → pass)`]);
    expect(diffResults(reference, reference)).toEqual([]);
  });

  it("exits 1 and prints the case for two differing files, 0 for the same run", () => {
    const differ = reportCli("diff", runs.reference, runs.broken);
    expect(differ.status, differ.stderr).toBe(1);
    expect(differ.stdout).toContain(`broken: ${BROKEN_CASE} (pass → fail)`);
    expect(differ.stdout).toContain("1 difference(s)");
    const same = reportCli("diff", runs.reference, runs.reference);
    expect([same.status, same.stdout.trimEnd().split("\n").at(-1)]).toEqual([0, "no differences"]);
    expect(reportCli("diff", runs.reference, join(runs.dir, "nothing.json")).status).toBe(2);
  });
});

describe("talkide-conformance-report build", () => {
  it("names the broken case in the page: a FAIL cell linked to a byte diff that shows the U+00A0", () => {
    const out = join(runs.dir, "page");
    const outcome = buildReport({
      resultsDir: runs.results,
      outDir: out,
      runtimes: ["reference", "broken"],
    });
    expect(outcome).toEqual({ ok: true, outDir: out, problems: [] });
    const html = readFileSync(join(out, "index.html"), "utf8");
    const row = new RegExp(`<tr data-case="${BROKEN_CASE}">.*?</tr>`, "u").exec(html)?.[0] ?? "";
    expect(row).toContain('<td class="pass" data-runtime="reference">pass</td>');
    expect(row).toContain('<td class="fail" data-runtime="broken"><a href="#fail--4');
    expect(html).toContain(`data-runtime="broken" data-case="${BROKEN_CASE}"`);
    expect(html).toContain("&#60;U+00A0&#62;");
    expect(html.match(/<td class="fail"/gu)).toHaveLength(1);
    const json = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as {
      complete: boolean;
      specVersions: { runtimes: { name: string; state: string }[] }[];
    };
    expect(json.complete).toBe(true);
    expect(json.specVersions[0]?.runtimes.map((r) => [r.name, r.state])).toEqual([
      ["reference", "passing"],
      ["broken", "failing"],
    ]);
    expect(readFileSync(join(out, "badges", "broken.svg"), "utf8")).toContain("#c62828");
    expect(readFileSync(join(out, "badges", "reference.svg"), "utf8")).toContain("#2e7d32");
  });

  it("refuses an incomplete set by name, and a preview shows the gap as missing, never as passing", () => {
    const out = join(runs.dir, "incomplete");
    const refused = buildReport({
      resultsDir: runs.results,
      outDir: out,
      runtimes: ["reference", "kotlin"],
    });
    expect(refused).toEqual({ ok: false, problems: ["kotlin: no result for spec 4.1.0"] });
    expect(existsSync(out)).toBe(false);
    const cli = reportCli("build", "--results", runs.results, "--out", out, "--runtime", "kotlin");
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain("incomplete: kotlin: no result for spec 4.1.0");

    const preview = buildReport({
      resultsDir: runs.results,
      outDir: out,
      runtimes: ["reference", "kotlin"],
      allowIncomplete: true,
    });
    expect(preview.ok).toBe(true);
    const html = readFileSync(join(out, "index.html"), "utf8");
    expect(html).toContain('data-runtime="kotlin" data-state="missing"');
    expect(html).not.toMatch(/class="pass" data-runtime="kotlin"/u);
    expect(html.match(/class="missing" data-runtime="kotlin">missing</gu)).toHaveLength(
      currentCases().length,
    );
    expect(readFileSync(join(out, "badges", "kotlin.svg"), "utf8")).toContain("missing");
  });

  it("counts a result that lacks cases as incomplete, and shows those cases as missing", () => {
    const dir = join(runs.dir, "partial");
    mkdirSync(join(dir, "short"), { recursive: true });
    const partial = {
      ...reference,
      implementation: { ...reference.implementation, name: "short" },
      cases: reference.cases.slice(1),
    };
    writeFileSync(join(dir, "short", "run.json"), JSON.stringify(partial));
    const outcome = buildReport({ resultsDir: dir, outDir: join(dir, "out"), runtimes: ["short"] });
    expect(outcome.ok).toBe(false);
    expect(outcome.problems[0]).toMatch(/^short: its result lacks 1 case\(s\)/u);
  });

  it("replaces the output folder whole and leaves no temporary folder", () => {
    const dir = join(runs.dir, "swap");
    cpSync(join(runs.results, "reference"), join(dir, "results", "reference"), { recursive: true });
    const out = join(dir, "out");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "stale.txt"), "from an older build");
    expect(
      buildReport({ resultsDir: join(dir, "results"), outDir: out, runtimes: ["reference"] }).ok,
    ).toBe(true);
    expect(readdirSync(out).sort()).toEqual(["badges", "index.html", "report.json"]);
    expect(readdirSync(dir).sort()).toEqual(["out", "results"]);
  });

  it("keeps a history line per runtime, oldest run first", () => {
    const dir = join(runs.dir, "history");
    mkdirSync(join(dir, "r"), { recursive: true });
    const later = {
      ...broken,
      implementation: reference.implementation,
      finishedAt: "2026-12-02T10:00:00.000Z",
    };
    const earlier = { ...reference, finishedAt: "2026-12-01T10:00:00.000Z" };
    writeFileSync(join(dir, "r", "2.json"), JSON.stringify(later));
    writeFileSync(join(dir, "r", "1.json"), JSON.stringify(earlier));
    expect(
      buildReport({ resultsDir: dir, outDir: join(dir, "out"), runtimes: ["reference"] }).ok,
    ).toBe(true);
    const html = readFileSync(join(dir, "out", "index.html"), "utf8");
    const line = /<li data-runtime="reference">.*?<\/li>/u.exec(html)?.[0] ?? "";
    const total = currentCases().length;
    expect(line).toContain("(2 runs, oldest first)");
    expect(line.indexOf(`>${String(total)}/${String(total)}<`)).toBeLessThan(
      line.indexOf(`>${String(total - 1)}/${String(total)}<`),
    );
  });
});

describe("the page escapes what a result file says", () => {
  it("escapes HTML and spells out characters that could hide", () => {
    expect(escapeHtml(`<script>"&'`)).toBe("&#60;script&#62;&#34;&#38;&#39;");
    expect(visibleLabel("a\u202Eb\u00A0c\u0301 d")).toBe(
      "a&#60;U+202E&#62;b&#60;U+00A0&#62;c&#60;U+0301&#62; d",
    );
  });

  it("writes no markup from an implementation's version text", () => {
    const dir = join(runs.dir, "hostile");
    mkdirSync(join(dir, "r"), { recursive: true });
    const hostile = {
      ...reference,
      implementation: {
        ...reference.implementation,
        version: '<img src=x onerror="alert(1)">\u202E',
      },
    };
    writeFileSync(join(dir, "r", "run.json"), JSON.stringify(hostile));
    expect(
      buildReport({ resultsDir: dir, outDir: join(dir, "out"), runtimes: ["reference"] }).ok,
    ).toBe(true);
    const html = readFileSync(join(dir, "out", "index.html"), "utf8");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&#60;img src=x onerror=&#34;alert(1)&#34;&#62;&#60;U+202E&#62;");
  });
});

describe("a release", () => {
  it("builds the page after the tests and before publishing, and packs it with the package", () => {
    const read = (url: URL): { files?: string[]; scripts?: Record<string, string> } =>
      JSON.parse(readFileSync(url, "utf8")) as {
        files?: string[];
        scripts?: Record<string, string>;
      };
    const root = read(new URL("../../../../package.json", import.meta.url));
    expect(root.scripts?.["release"]).toBe(
      "pnpm run check && pnpm run conformance:report && changeset publish",
    );
    // The strict build: no --allow-incomplete, so a missing runtime stops the release.
    expect(root.scripts?.["conformance:report"]).toContain(
      "--out packages/context-spec/conformance-report",
    );
    expect(root.scripts?.["conformance:report"]).not.toContain("--allow-incomplete");
    expect(read(new URL("../../package.json", import.meta.url)).files).toContain(
      "conformance-report",
    );
  });
});
