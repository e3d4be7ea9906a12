import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// The script `.ci/run` uses to set transparent huge pages for its run and put the machine's
// own mode back at its end, driven against a file of its own instead of the kernel's.
const SCRIPT = fileURLToPath(new URL("./huge-pages.sh", import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for /sys/kernel/mm/transparent_hugepage/enabled holding `content`. */
function knob(content: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "talkide-thp-"));
  dirs.push(dir);
  const file = join(dir, "enabled");
  if (content !== null) writeFileSync(file, content);
  return file;
}

function run(file: string, ...args: string[]) {
  const result = spawnSync("sh", [SCRIPT, ...args], {
    encoding: "utf8",
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", TALKIDE_THP_KNOB: file },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("scripts/huge-pages.sh", () => {
  it("set: prints the mode it found and sets always; restore puts that mode back", () => {
    const file = knob("always [madvise] never\n");
    const set = run(file, "set");
    expect(set).toMatchObject({ code: 0, stdout: "madvise\n" });
    expect(set.stderr).toContain("madvise -> always");
    expect(readFileSync(file, "utf8")).toBe("always\n");
    // The kernel would now read "[always] madvise never".
    writeFileSync(file, "[always] madvise never\n");
    expect(run(file, "restore", "madvise")).toMatchObject({ code: 0 });
    expect(readFileSync(file, "utf8")).toBe("madvise\n");
  });

  it("set: leaves always as it is, and restore of the mode already set writes nothing", () => {
    const file = knob("[always] madvise never\n");
    expect(run(file, "set")).toMatchObject({ code: 0, stdout: "always\n" });
    expect(run(file, "restore", "always")).toMatchObject({ code: 0, stderr: "" });
    expect(readFileSync(file, "utf8")).toBe("[always] madvise never\n");
  });

  it("set: without a readable setting, says so, prints no mode and fails nothing; restore of none does nothing", () => {
    const file = knob(null);
    const set = run(file, "set");
    expect(set).toMatchObject({ code: 0, stdout: "\n" });
    expect(set.stderr).toContain("not readable here");
    expect(run(file, "restore", "")).toMatchObject({ code: 0, stderr: "" });
  });

  it("hint: one line on how when the mode is not always, nothing when it is; never writes", () => {
    const madvise = knob("always [madvise] never\n");
    const hint = run(madvise, "hint");
    expect(hint).toMatchObject({ code: 0, stdout: "" });
    expect(hint.stderr).toMatch(/^note: transparent huge pages are 'madvise' here; .+\n$/u);
    expect(readFileSync(madvise, "utf8")).toBe("always [madvise] never\n");
    expect(run(knob("[always] madvise never\n"), "hint")).toMatchObject({ code: 0, stderr: "" });
  });

  it("refuses an unknown command with its usage and exit status 2", () => {
    const result = run(knob("[always] madvise never\n"), "enable");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("usage: sh scripts/huge-pages.sh set | restore <mode> | hint");
  });
});
