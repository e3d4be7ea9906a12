import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN_FILE, AdminClient, CliError, createLogger } from "@talkide/service-kit";
import { loadHubConfig, type HubConfig } from "../config.ts";
import { startHub } from "../server.ts";
import { daemonCommand } from "./daemon-command.ts";

/** Running from TypeScript sources (the workspace's source condition) or from `dist`. */
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** The `ticlawk` entry point of this package, as the daemon's wrapper should run it. */
export const TICLAWK_ENTRY = fileURLToPath(
  new URL(`../ticlawk/main.${FROM_SOURCE ? "ts" : "js"}`, import.meta.url),
);

/**
 * `talkide-hub local-loop`: the whole loop on one machine with one command. The hub runs in
 * this process, the daemon as a child process (`talkide-daemon start`, found by
 * `daemonCommand`), and they meet only over HTTP, as a real message service and a daemon
 * would: the daemon is told the hub's URL (`TALKIDE_UPSTREAM_URL`) and where `ticlawk` is
 * (`TALKIDE_TICLAWK_ENTRY`), and that no agent's command may read the hub's data directory
 * (`TALKIDE_SANDBOX_DENY_READ`); the hub gets a fresh intake token created through the daemon's
 * admin API. Both keep their own configuration (`TALKIDE_DAEMON_*`, `TALKIDE_HUB_*`) and data
 * directory. The hub reads none of the daemon's configuration: the daemon checks its own
 * variables, and its "listening" line says where it listens and where its data (with the
 * admin token) is. Stops both on SIGINT/SIGTERM; stops the hub when the daemon exits.
 */
export async function runLocalLoop(io: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly err: (text: string) => void;
  readonly untilSignal: (stop: () => Promise<void>) => Promise<void>;
}): Promise<void> {
  const daemon = daemonCommand(io.env, io.cwd);
  const hubConfig = loadHubConfig(io.env, io.cwd);
  // The daemon's own level (blank is unset: info); the daemon refuses a name it does not know.
  const level = io.env["TALKIDE_DAEMON_LOG_LEVEL"];
  const daemonLevel = level === undefined || level === "" ? "info" : level;
  const askedLevel = Object.hasOwn(LEVELS, daemonLevel)
    ? LEVELS[daemonLevel as HubConfig["logLevel"]]
    : LEVELS.info;
  const logger = createLogger("talkide-hub", hubConfig.logLevel);
  // The hub first: the daemon must know its URL when it starts.
  const hub = await startHub({ config: { ...hubConfig, intakeToken: null }, logger });
  const child = spawn(daemon.command, [...daemon.args, "start"], {
    cwd: io.cwd,
    env: {
      ...io.env,
      TALKIDE_UPSTREAM_URL: hub.url,
      TALKIDE_TICLAWK_ENTRY: TICLAWK_ENTRY,
      // The agents' commands may reach the hub (their ticlawk does), so they must not read its
      // data (its admin token, its database): the daemon's sandbox denies it to them.
      TALKIDE_SANDBOX_DENY_READ: [io.env["TALKIDE_SANDBOX_DENY_READ"] ?? "", hubConfig.dataDir]
        .filter((dir) => dir !== "")
        .join(delimiter),
      // At least info, for its "listening" line; lines below the asked level are dropped.
      TALKIDE_DAEMON_LOG_LEVEL: askedLevel > LEVELS.info ? "info" : daemonLevel,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve([code, signal]);
    });
  });
  const spawnFailed = once(child, "spawn").then(
    () => new Promise<never>(() => undefined),
    (error: unknown) => {
      throw new CliError(
        "daemon_not_found",
        `Could not start the daemon (${daemon.command}: ${String(error)}): install talkide-daemon, or set TALKIDE_HUB_DAEMON_BIN to it.`,
      );
    },
  );
  try {
    const daemonListening = await Promise.race([
      listening(child.stdout, exited, askedLevel),
      spawnFailed,
    ]);
    const daemonUrl = daemonListening.url;
    const adminToken = (
      await readFile(join(daemonListening.dataDir, ADMIN_TOKEN_FILE), "utf8")
    ).trim();
    // Same words as the daemon's own CLI: the daemon this command started stopped answering.
    const daemonAdmin = new AdminClient(daemonUrl, adminToken, {
      code: "daemon_unreachable",
      hint: "No daemon answers at {url}. Start it with: talkide-daemon start (or pass --url).",
    });
    const { body } = await daemonAdmin.request<{ token: string }>("POST", "/v1/tokens", {
      name: "local-hub",
      scope: "intake",
    });
    // Until now a message's deliveries only waited in the hub's outbox.
    await hub.connectDaemon(daemonUrl, body.token);
    io.err(
      [
        `talkide-hub local-loop: daemon ${daemonUrl} (data ${daemonListening.dataDir}), hub ${hub.url} (data ${hubConfig.dataDir})`,
        `  the hub's intake token (to run the hub alone: TALKIDE_HUB_DAEMON_URL=${daemonUrl} TALKIDE_HUB_INTAKE_TOKEN=...): ${body.token}`,
        `  people: export TICLAWK_HUB_URL=${hub.url} TICLAWK_TOKEN="$(talkide-hub member add --human <handle>)"`,
        "",
      ].join("\n"),
    );
  } catch (error) {
    // A daemon that never started has nothing to stop.
    if (child.pid !== undefined) {
      child.kill("SIGTERM");
      await exited;
    }
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

/** pino's numeric levels (the daemon's level names are the hub's). */
const LEVELS: Readonly<Record<HubConfig["logLevel"], number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/**
 * Forwards the daemon's log lines at or above `minLevel` and resolves with the URL and the data
 * directory of its "listening" line.
 */
function listening(
  stdout: NodeJS.ReadableStream,
  exited: Promise<[number | null, NodeJS.Signals | null]>,
  minLevel: number,
): Promise<{ readonly url: string; readonly dataDir: string }> {
  return new Promise((resolve, reject) => {
    createInterface({ input: stdout }).on("line", (line) => {
      let entry: Record<string, unknown> | null = null;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // Not a log line of the daemon's: forwarded as it is.
      }
      const level = typeof entry?.["level"] === "number" ? entry["level"] : Infinity;
      if (level >= minLevel) process.stdout.write(`${line}\n`);
      if (
        entry?.["msg"] === "listening" &&
        typeof entry["url"] === "string" &&
        typeof entry["dataDir"] === "string"
      )
        resolve({ url: entry["url"], dataDir: entry["dataDir"] });
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
