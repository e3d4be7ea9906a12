import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RENDER_BIN } from "../test-support/conformance.ts";
import { workedExample } from "../test-support/fixtures.ts";
import {
  EXIT_INVALID_STATE,
  EXIT_USAGE,
  parseRenderArguments,
  runRender,
  type RenderOptions,
} from "./render-command.ts";

const EXAMPLE = readFileSync(
  fileURLToPath(new URL("../../examples/pekarna.json", import.meta.url)),
);
const SINGLE: RenderOptions = { layout: "single", file: "CLAUDE.md" };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("parseRenderArguments", () => {
  it("defaults to the single layout's CLAUDE.md", () => {
    expect(parseRenderArguments([])).toEqual(SINGLE);
    expect(parseRenderArguments(["--layout", "single", "--file", "CLAUDE.md"])).toEqual(SINGLE);
  });

  it("takes either file of the split layout", () => {
    expect(parseRenderArguments(["--layout", "split", "--file", "CLAUDE.md"])).toEqual({
      layout: "split",
      file: "CLAUDE.md",
    });
    expect(parseRenderArguments(["--layout=split", "--file=.talkide/active-writer.md"])).toEqual({
      layout: "split",
      file: ".talkide/active-writer.md",
    });
  });

  it.each([
    [["--layout", "split"]],
    [["--layout", "single", "--file", ".talkide/active-writer.md"]],
    [["--layout", "double"]],
    [["--file", "README.md"]],
    [["--bogus"]],
    [["state.json"]],
  ])("refuses %j as a usage error (exit 64) with a message and no output", (args) => {
    const outcome = parseRenderArguments(args);
    expect(outcome).toMatchObject({ exitCode: EXIT_USAGE, stdout: "" });
    expect("stderr" in outcome && outcome.stderr).not.toBe("");
  });

  it("prints help on stdout with exit 0", () => {
    const outcome = parseRenderArguments(["--help"]);
    expect(outcome).toMatchObject({ exitCode: 0, stderr: "" });
    expect("stdout" in outcome && outcome.stdout).toContain("--layout");
  });
});

describe("runRender", () => {
  it("writes the bytes and nothing on stderr for a valid state", () => {
    const outcome = runRender(EXAMPLE, SINGLE);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stderr).toBe("");
    expect(outcome.stdout).toMatch(/^# Projekt\n[\s\S]*\n# Aktuálně píše\nAnna\n$/u);
  });

  it("writes the requested file of the split layout", () => {
    expect(runRender(EXAMPLE, { layout: "split", file: ".talkide/active-writer.md" }).stdout).toBe(
      "# Aktuálně píše\nAnna\n",
    );
    expect(runRender(EXAMPLE, { layout: "split", file: "CLAUDE.md" }).stdout).toMatch(
      /\n\n@\.talkide\/active-writer\.md\n$/u,
    );
  });

  it.each([
    ["not JSON", bytes("{project:"), { code: "invalid_field", path: "" }],
    ["two JSON texts", bytes("{} {}"), { code: "invalid_field", path: "" }],
    ["empty input", bytes(""), { code: "invalid_field", path: "" }],
    ["malformed UTF-8", new Uint8Array([0x7b, 0xff, 0x7d]), { code: "invalid_field", path: "" }],
    ["a JSON array", bytes("[]"), { code: "invalid_field", path: "" }],
    [
      "a forbidden field",
      bytes(
        JSON.stringify({
          ...workedExample(),
          team: [{ ...workedExample().team[0], email: "a@b" }],
        }),
      ),
      { code: "forbidden_field", path: "team[0].email" },
    ],
  ])("refuses %s: nothing on stdout, one JSON line on stderr, exit 2", (_name, input, error) => {
    const outcome = runRender(input, SINGLE);
    expect(outcome).toEqual({
      exitCode: EXIT_INVALID_STATE,
      stdout: "",
      stderr: `${JSON.stringify(error)}\n`,
    });
  });

  it("skips a leading byte order mark, as the reference interpreter does", () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...EXAMPLE]);
    expect(runRender(withBom, SINGLE)).toEqual(runRender(EXAMPLE, SINGLE));
  });

  it("never repeats the input in the error, even when the JSON parser would", () => {
    const outcome = runRender(bytes('{"project": secret-value-123}'), SINGLE);
    expect(outcome.stderr).not.toContain("secret");
  });
});

describe("the talkide-render bin", () => {
  const run = (args: string[], input: Uint8Array) =>
    spawnSync(process.execPath, ["--conditions=@talkide/source", RENDER_BIN, ...args], {
      input,
      encoding: "utf8",
    });

  it("speaks the runner protocol for a valid state", () => {
    const child = run([], EXAMPLE);
    expect(child.status).toBe(0);
    expect(child.stderr).toBe("");
    expect(child.stdout).toBe(runRender(EXAMPLE, SINGLE).stdout);
  });

  it("speaks the runner protocol for an invalid state", () => {
    const child = run(["--layout", "split", "--file", "CLAUDE.md"], bytes('{"project":{}}'));
    expect(child.status).toBe(2);
    expect(child.stdout).toBe("");
    expect(child.stderr).toBe('{"code":"missing_field","path":"project.id"}\n');
  });

  it("exits 64 on a usage error without reading a state", () => {
    const child = run(["--layout", "split"], EXAMPLE);
    expect(child.status).toBe(64);
    expect(child.stdout).toBe("");
    expect(child.stderr).toContain("--file");
  });
});
