import { Command, Option } from "commander";
import {
  AdminClient,
  createLogger,
  httpUrl,
  resolveAdminToken,
  runProgram,
  stopSignal,
} from "@talkide/service-kit";
import { loadHubConfig, type HubConfig } from "../config.ts";
import { startHub } from "../server.ts";
import { registerAdminCommands } from "./admin-commands.ts";
import { runLocalLoop } from "./local-loop.ts";

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

interface AdminOptions {
  readonly url?: string;
  readonly token?: string;
}

/** `talkide-hub`: run the hub (alone, or with a daemon as the local loop) and administer it. */
function buildProgram(io: CliIo): Command {
  const program = new Command("talkide-hub")
    .description(
      "The local message hub: groups, DMs, threads, tasks; routes messages to a daemon's intake.",
    )
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  const config = (): HubConfig => loadHubConfig(io.env, io.cwd);
  const client = async (options: AdminOptions): Promise<AdminClient> => {
    const c = config();
    const url = options.url ?? httpUrl(c.host, c.port);
    const token = await resolveAdminToken({
      token: options.token,
      env: io.env,
      variable: "TALKIDE_HUB_ADMIN_TOKEN",
      dataDir: c.dataDir,
      service: "hub",
    });
    return new AdminClient(url, token, {
      code: "hub_unreachable",
      hint: "No hub answers at {url}. Start it with: talkide-hub start (or pass --url).",
    });
  };
  const adminOptions = (command: Command): Command =>
    command
      .addOption(
        new Option("--url <url>", "the hub's base URL (default from TALKIDE_HUB_HOST/PORT)"),
      )
      .addOption(
        new Option(
          "--token <token>",
          "the hub's admin token (default: TALKIDE_HUB_ADMIN_TOKEN, then the data dir)",
        ),
      );

  program
    .command("start")
    .description("run the hub in the foreground (configuration from the environment; see README)")
    .action(async () => {
      const c = config();
      const logger = createLogger("talkide-hub", c.logLevel);
      const hub = await startHub({ config: c, logger });
      if (c.intakeToken === null)
        logger.warn("TALKIDE_HUB_INTAKE_TOKEN is not set: messages are stored, deliveries wait");
      await untilSignal(() => hub.stop());
    });

  program
    .command("local-loop")
    .description(
      "run a daemon (child process) and this hub together on this machine, wired over HTTP",
    )
    .action(async () => {
      await runLocalLoop({ env: io.env, cwd: io.cwd, err: io.err, untilSignal });
    });

  registerAdminCommands(program, { out: io.out, err: io.err, client, adminOptions });
  return program;
}

/** Resolves after SIGINT or SIGTERM, once `stop` finished (or failed). */
async function untilSignal(stop: () => Promise<void>): Promise<void> {
  await stopSignal();
  await stop().catch(() => undefined);
}

/** Runs the CLI; returns the exit code. */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runProgram(buildProgram(io), argv, io.err);
}
