// Which boundary for the commands the agent runs (issue 49)? One turn of the pinned `claude`
// in which the scripted model runs one command, `env` (so the result shows whether the provider
// key reached the command), against the fake Messages API, in three ways:
//   none      no sandbox (what ran before issue 49)
//   claude    Claude Code's own sandbox (`--settings` with `sandbox.enabled`), the key by
//             apiKeyHelper from a file the sandbox hides: what the service does now
//   srt       the whole CLI inside Anthropic's sandbox runtime (`srt`, npm
//             @anthropic-ai/sandbox-runtime), which also confines the CLI's file tools; the key
//             in the CLI's environment (the CLI needs it, and everything it runs inherits it)
// Wall time per turn (median of BENCH_TURNS, default 5) and whether the command saw the key.
// `srt` runs only when SRT_PATH names its binary (it is not a dependency of this repository):
//   SRT_PATH=/path/to/node_modules/.bin/srt node --conditions=@talkide/source src/bench/sandbox.bench.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { findBundledClaudePath } from "@talkide/claude-cli";
import { runOneTurn, startFakeMessagesApi } from "@talkide/claude-cli/testing";

const TURNS = Number(process.env.BENCH_TURNS ?? 5);
const KEY = "sk-ant-bench-KEYCANARY";
const bundled = findBundledClaudePath(import.meta.url);
if (bundled === null) throw new Error("the pinned claude binary is not installed");
const claude: string = bundled;
const srt = process.env.SRT_PATH ?? null;
// On disk, not in /dev/shm: the sandboxes give commands a /dev of their own.
const root = mkdtempSync(join(process.env.BENCH_DIR ?? "/var/tmp", "talkide-sandbox-bench-"));
const data = join(root, "data");
const workspace = join(root, "workspaces", "project-1");
const configDir = join(data, "claude");
for (const dir of [workspace, configDir, join(data, "tmp"), join(root, "home")])
  mkdirSync(dir, { recursive: true });
const keyFile = join(data, "provider-key");
writeFileSync(keyFile, KEY, { mode: 0o600 });

const fake = await startFakeMessagesApi({
  reply: (request) =>
    request.rawBody.includes("toolu_01Env")
      ? { text: "Done." }
      : {
          content: [
            { type: "tool_use", id: "toolu_01Env", name: "Bash", input: { command: "env" } },
          ],
        },
});

type Mode = "none" | "claude" | "srt";

// The CLI inside srt: it may write its workspace and its own state, reach the provider (here
// the fake API on loopback), and read nothing of other workspaces.
const srtSettings = join(root, "srt.json");
writeFileSync(
  srtSettings,
  JSON.stringify({
    filesystem: {
      denyRead: [join(root, "workspaces", "other")],
      allowWrite: [workspace, data, tmpdir()],
      denyWrite: [],
    },
    network: { allowedDomains: ["127.0.0.1", "localhost"], deniedDomains: [] },
  }),
);
const srtWrapper = join(root, "claude-in-srt");
writeFileSync(srtWrapper, `#!/bin/sh\nexec '${srt ?? ""}' -s '${srtSettings}' '${claude}' "$@"\n`, {
  mode: 0o755,
});

async function turn(mode: Mode): Promise<{ ms: number; keySeen: boolean }> {
  const settings = {
    ...(mode === "claude" ? { apiKeyHelper: `cat '${keyFile}'` } : {}),
    ...(mode === "claude"
      ? {
          sandbox: {
            enabled: true,
            failIfUnavailable: true,
            allowUnsandboxedCommands: false,
            autoAllowBashIfSandboxed: false,
            filesystem: { denyRead: [data, join(root, "workspaces")], allowRead: [workspace] },
            network: { allowedDomains: [] },
          },
        }
      : {}),
  };
  const before = fake.messageRequests().length;
  const started = performance.now();
  const result = await runOneTurn({
    claudePath: mode === "srt" ? srtWrapper : claude,
    cwd: workspace,
    env: {
      PATH: process.env.PATH ?? "",
      // The sandbox leaves empty files where it binds its protections (~/.bash_profile, …).
      HOME: join(root, "home"),
      CLAUDE_CONFIG_DIR: configDir,
      TMPDIR: join(data, "tmp"),
      ANTHROPIC_BASE_URL: fake.url,
      ...(mode === "claude" ? {} : { ANTHROPIC_API_KEY: KEY }),
    },
    prompt: "Run env.",
    timeoutMs: 120_000,
    extraArgs: [
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      "Bash(*)",
      ...(mode === "claude" ? ["--settings", JSON.stringify(settings)] : []),
    ],
  });
  const ms = performance.now() - started;
  if (!result.ok)
    throw new Error(`the ${mode} turn failed: ${JSON.stringify(result).slice(0, 600)}`);
  const results = fake
    .messageRequests()
    .slice(before)
    .map((r) => r.rawBody)
    .join("\n");
  return { ms, keySeen: results.includes(`ANTHROPIC_API_KEY=${KEY}`) };
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const modes: Mode[] = srt === null ? ["none", "claude"] : ["none", "claude", "srt"];
const rows: string[] = [];
try {
  for (const mode of modes) {
    await turn(mode); // warm-up: the CLI's own first-start work
    const times: number[] = [];
    let keySeen = false;
    for (let i = 0; i < TURNS; i += 1) {
      const result = await turn(mode);
      times.push(result.ms);
      keySeen ||= result.keySeen;
    }
    rows.push(`| ${mode} | ${(median(times) / 1000).toFixed(2)} s | ${keySeen ? "yes" : "no"} |`);
  }
} finally {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
console.log(
  `- ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; median of ${TURNS} turns each, after one warm-up turn`,
);
console.log("");
console.log("| boundary | one turn with one command | the command saw the provider key |");
console.log("| --- | ---: | --- |");
for (const row of rows) console.log(row);
