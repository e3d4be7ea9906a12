import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadConfig, type DaemonConfig } from "@talkide/daemon";
import { ADMIN_TOKEN_FILE, AdminClient, CliError, createLogger } from "@talkide/service-kit";
import { loadHubConfig } from "../config.ts";
import { startHub } from "../server.ts";

/** Running from TypeScript sources (the workspace's source condition) or from `dist`. */
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** The `ticlawk` entry point of this package, as the daemon's wrapper should run it. */
export const TICLAWK_ENTRY = fileURLToPath(
  new URL(`../ticlawk/main.${FROM_SOURCE ? "ts" : "js"}`, import.meta.url),
);

function daemonBin(): string {
  const root = dirname(fileURLToPath(import.meta.resolve("@talkide/daemon/package.json")));
  return FROM_SOURCE
    ? join(root, "src", "bin", "talkide-daemon.ts")
    : join(root, "dist", "bin", "talkide-daemon.js");
}

/**
 * `talkide-hub local-loop`: the whole loop on one machine with one command. The hub runs in
 * this process, the daemon as a child process (`talkide-daemon start`), and they meet only
 * over HTTP, as a real message service and a daemon would: the daemon is told the hub's URL
 * (`TALKIDE_UPSTREAM_URL`) and where `ticlawk` is (`TALKIDE_TICLAWK_ENTRY`); the hub gets a
 * fresh intake token created through the daemon's admin API. Both keep their own
 * configuration (`TALKIDE_DAEMON_*`, `TALKIDE_HUB_*`) and data directory. Stops both on
 * SIGINT/SIGTERM; stops the hub when the daemon exits.
 */
export async function runLocalLoop(io: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly err: (text: string) => void;
  readonly untilSignal: (stop: () => Promise<void>) => Promise<void>;
}): Promise<void> {
  const daemonConfig = loadConfig(io.env, io.cwd);
  const hubConfig = loadHubConfig(io.env, io.cwd);
  const logger = createLogger("talkide-hub", hubConfig.logLevel);
  // The hub first: the daemon must know its URL when it starts.
  const hub = await startHub({ config: { ...hubConfig, intakeToken: null }, logger });
  const child = spawn(
    process.execPath,
    [...(FROM_SOURCE ? ["--conditions=@talkide/source"] : []), daemonBin(), "start"],
    {
      cwd: io.cwd,
      env: {
        ...io.env,
        TALKIDE_UPSTREAM_URL: hub.url,
        TALKIDE_TICLAWK_ENTRY: TICLAWK_ENTRY,
        // At least info, for its "listening" line; lines below the asked level are dropped.
        TALKIDE_DAEMON_LOG_LEVEL:
          LEVELS[daemonConfig.logLevel] > LEVELS.info ? "info" : daemonConfig.logLevel,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  try {
    const daemonUrl = await listeningUrl(child.stdout, exited, LEVELS[daemonConfig.logLevel]);
    const adminToken = (
      await readFile(join(daemonConfig.dataDir, ADMIN_TOKEN_FILE), "utf8")
    ).trim();
    // Same words as the daemon's own CLI: the daemon this command started stopped answering.
    const daemon = new AdminClient(daemonUrl, adminToken, {
      code: "daemon_unreachable",
      hint: "No daemon answers at {url}. Start it with: talkide-daemon start (or pass --url).",
    });
    const { body } = await daemon.request<{ token: string }>("POST", "/v1/tokens", {
      name: "local-hub",
      scope: "intake",
    });
    // Until now a message's deliveries only waited in the hub's outbox.
    await hub.connectDaemon(daemonUrl, body.token);
    io.err(
      [
        `talkide-hub local-loop: daemon ${daemonUrl} (data ${daemonConfig.dataDir}), hub ${hub.url} (data ${hubConfig.dataDir})`,
        `  the hub's intake token (to run the hub alone: TALKIDE_HUB_DAEMON_URL=${daemonUrl} TALKIDE_HUB_INTAKE_TOKEN=...): ${body.token}`,
        `  people: export TICLAWK_HUB_URL=${hub.url} TICLAWK_TOKEN="$(talkide-hub member add --human <handle>)"`,
        "",
      ].join("\n"),
    );
  } catch (error) {
    child.kill("SIGTERM");
    await exited;
    await hub.stop();
    throw error;
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    child.kill("SIGTERM");
    await exited;
    await hub.stop();
  };
  await Promise.race([
    io.untilSignal(stop),
    exited.then(async ([code, signal]) => {
      if (stopped) return;
      await hub.stop();
      throw new CliError(
        "daemon_exited",
        `The daemon exited (${String(code ?? signal)}); the hub stopped with it.`,
      );
    }),
  ]);
}

/** pino's numeric levels. */
const LEVELS: Readonly<Record<DaemonConfig["logLevel"], number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/**
 * Forwards the daemon's log lines at or above `minLevel` and resolves with the URL of its
 * "listening" line.
 */
function listeningUrl(
  stdout: NodeJS.ReadableStream,
  exited: Promise<[number | null, NodeJS.Signals | null]>,
  minLevel: number,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    createInterface({ input: stdout }).on("line", (line) => {
      let entry: Record<string, unknown> | null = null;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // Not a log line of the daemon's: forwarded as it is.
      }
      const level = typeof entry?.["level"] === "number" ? entry["level"] : Infinity;
      if (level >= minLevel) process.stdout.write(`${line}\n`);
      if (entry?.["msg"] === "listening" && typeof entry["url"] === "string") resolve(entry["url"]);
    });
    void exited.then(([code, signal]) => {
      reject(
        new CliError(
          "daemon_exited",
          `The daemon exited (${String(code ?? signal)}) before it listened; see its log above.`,
        ),
      );
    });
  });
}
