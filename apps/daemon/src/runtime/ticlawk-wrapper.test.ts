import { execFile } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "../test-support/harness.ts";
import { fetchUsesEnvProxy, writeTiclawkWrapper } from "./ticlawk-wrapper.ts";

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

async function setup(entries: { source?: string; built?: string }) {
  const dir = await makeTempDir();
  dirs.push(dir);
  const source = join(dir, "it's src", "main.ts");
  const built = join(dir, "dist", "main.js");
  await mkdir(join(dir, "it's src"), { recursive: true });
  await mkdir(join(dir, "dist"), { recursive: true });
  if (entries.source !== undefined) await writeFile(source, entries.source);
  if (entries.built !== undefined) await writeFile(built, entries.built);
  const wrapper = await writeTiclawkWrapper(join(dir, "data"), { source, built });
  return wrapper;
}

async function runWrapper(path: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return run(path, args, { encoding: "utf8", env }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (error: unknown) => {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    },
  );
}

describe("the ticlawk wrapper", () => {
  it("is an executable in <dataDir>/bin", async () => {
    const wrapper = await setup({});
    expect(wrapper.path).toBe(join(wrapper.binDir, "ticlawk"));
    expect((await stat(wrapper.path)).mode & 0o111).toBe(0o111);
    expect((await readFile(wrapper.path, "utf8")).startsWith("#!/bin/sh\n")).toBe(true);
  });

  it("runs the TypeScript source entry with this Node and passes arguments through unchanged", async () => {
    const wrapper = await setup({
      source:
        'const x: string = "src"; console.log(JSON.stringify([x, ...process.argv.slice(2)]));',
      built: 'console.log("built");',
    });
    const r = await runWrapper(wrapper.path, ["message", "send", "--target", "#a b", "$HOME"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(["src", "message", "send", "--target", "#a b", "$HOME"]);
  });

  it("falls back to the built entry", async () => {
    const wrapper = await setup({
      built: 'console.log("built " + process.argv.slice(2).join(","));',
    });
    expect((await runWrapper(wrapper.path, ["x", "y"])).stdout).toBe("built x,y\n");
  });

  it("says, as JSON on stderr with exit 127, when no CLI is installed", async () => {
    const wrapper = await setup({});
    const r = await runWrapper(wrapper.path, ["server", "info"]);
    expect(r.code).toBe(127);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "ticlawk_unavailable" } });
  });

  it("inside Claude Code's sandbox sends the CLI's fetch through the sandbox's proxy, and only there", async () => {
    const wrapper = await setup({
      built: [
        "const { NODE_USE_ENV_PROXY, NO_PROXY, no_proxy, HTTP_PROXY } = process.env;",
        "console.log(JSON.stringify({ NODE_USE_ENV_PROXY, NO_PROXY, no_proxy, HTTP_PROXY }));",
      ].join("\n"),
    });
    const proxy = {
      HTTP_PROXY: "http://user:pass@127.0.0.1:3128",
      NO_PROXY: "localhost,127.0.0.1",
      no_proxy: "localhost,127.0.0.1",
    };
    const inside = await runWrapper(wrapper.path, [], {
      PATH: process.env["PATH"],
      SANDBOX_RUNTIME: "1",
      ...proxy,
    });
    // The sandbox's NO_PROXY lists loopback, which would go past the proxy into nothing.
    expect(JSON.parse(inside.stdout)).toEqual({
      NODE_USE_ENV_PROXY: "1",
      HTTP_PROXY: proxy.HTTP_PROXY,
    });
    const outside = await runWrapper(wrapper.path, [], { PATH: process.env["PATH"], ...proxy });
    expect(JSON.parse(outside.stdout)).toEqual(proxy);
  });
});

describe("fetchUsesEnvProxy", () => {
  it.each([
    ["24.21.0", true],
    ["24.0.0", true],
    ["25.1.0", true],
    ["22.21.0", true],
    ["22.20.0", false],
    ["23.11.0", false],
    ["20.20.2", false],
  ])("Node %s: %s", (version, expected) => {
    expect(fetchUsesEnvProxy(version)).toBe(expected);
  });
});
