import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { MARA_PLUGIN_BIN } from "../test-support/paths.ts";
import { buildMaraPlugin, MARA_AGENT_NAME } from "./agent-file.ts";
import { writeMaraPlugin } from "./write-plugin.ts";

const run = promisify(execFile);
let dir = "";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "talkide-mara-plugin-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeMaraPlugin", () => {
  test("writes every file of the plugin, creating folders", async () => {
    const target = join(dir, "nested", "plugin");
    const results = await writeMaraPlugin(target);
    expect(results.map((result) => result.status)).toEqual(buildMaraPlugin().map(() => "written"));
    for (const file of buildMaraPlugin()) {
      expect(await readFile(join(target, file.path), "utf8")).toBe(file.content);
    }
  });

  test("leaves files with the right bytes untouched, rewrites the others", async () => {
    await writeMaraPlugin(dir);
    const manifest = join(dir, ".claude-plugin", "plugin.json");
    const agent = join(dir, "agents", "talkide-pm.md");
    const past = new Date("2001-01-01T00:00:00Z");
    await utimes(manifest, past, past);
    await writeFile(agent, "stale\n");
    const results = await writeMaraPlugin(dir);
    expect(results.slice(0, 2)).toEqual([
      { path: ".claude-plugin/plugin.json", status: "unchanged" },
      { path: "agents/talkide-pm.md", status: "written" },
    ]);
    expect(results.slice(2).map((result) => result.status)).toEqual(
      results.slice(2).map(() => "unchanged"),
    );
    expect((await stat(manifest)).mtime.getTime()).toBe(past.getTime());
    expect(await readFile(agent, "utf8")).toBe(buildMaraPlugin()[1]?.content);
  });
});

describe("bin talkide-mara-plugin", () => {
  test("writes the directory, reports what it did and the --agent value", async () => {
    const first = await run(process.execPath, [
      "--conditions=@talkide/source",
      MARA_PLUGIN_BIN,
      dir,
    ]);
    const lines = (status: string) =>
      `${buildMaraPlugin()
        .map((file) => `${status} ${file.path}\n`)
        .join("")}agent ${MARA_AGENT_NAME}\n`;
    expect(first.stdout).toBe(lines("written"));
    const second = await run(process.execPath, [
      "--conditions=@talkide/source",
      MARA_PLUGIN_BIN,
      dir,
    ]);
    expect(second.stdout).toBe(lines("unchanged"));
  });

  test("fails with a clear message when the directory cannot be written", async () => {
    const file = join(dir, "a-file");
    await writeFile(file, "x");
    const attempt = run(process.execPath, ["--conditions=@talkide/source", MARA_PLUGIN_BIN, file]);
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`talkide-mara-plugin: cannot write ${file}`) as string,
    });
  });
});
