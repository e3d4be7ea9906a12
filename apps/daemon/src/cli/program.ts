import { resolve } from "node:path";
import { Command, Option } from "commander";
import { loadConfig, type DaemonConfig } from "../config.ts";
import { startDaemon } from "../daemon.ts";
import type { AgentView } from "../http/views.ts";
import {
  AdminClient,
  createLogger,
  httpUrl,
  resolveAdminToken,
  runProgram,
  stopSignal,
} from "@talkide/service-kit";

/** What the daemon's CLI says when no daemon answers. */
const DAEMON_UNREACHABLE = {
  code: "daemon_unreachable",
  hint: "No daemon answers at {url}. Start it with: talkide-daemon start (or pass --url).",
} as const;

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

interface AdminOptions {
  readonly url?: string;
  readonly token?: string;
  readonly json?: boolean;
}

/** `talkide-daemon`: start the daemon, and administer a running one through its API. */
export function buildProgram(io: CliIo): Command {
  const program = new Command("talkide-daemon")
    .description(
      "Wakes agents on inbound messages: one runtime session per conversation, nothing lost.",
    )
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  const config = (): DaemonConfig => loadConfig(io.env, io.cwd);
  const client = async (options: AdminOptions): Promise<AdminClient> => {
    const c = config();
    const url = options.url ?? httpUrl(c.host, c.port);
    const token = await resolveAdminToken({
      token: options.token,
      env: io.env,
      variable: "TALKIDE_ADMIN_TOKEN",
      dataDir: c.dataDir,
      service: "daemon",
    });
    return new AdminClient(url, token, DAEMON_UNREACHABLE);
  };
  const adminOptions = (command: Command): Command =>
    command
      .addOption(
        new Option("--url <url>", "the daemon's base URL (default from TALKIDE_DAEMON_HOST/PORT)"),
      )
      .addOption(
        new Option(
          "--token <token>",
          "an admin token (default: TALKIDE_ADMIN_TOKEN, then the data dir)",
        ),
      );

  program
    .command("start")
    .description(
      "run the daemon in the foreground (configuration from the environment; see README)",
    )
    .action(async () => {
      const c = config();
      const logger = createLogger("talkide-daemon", c.logLevel);
      const daemon = await startDaemon({ config: c, logger });
      const signal = await stopSignal();
      logger.info({ signal }, "stopping");
      await daemon.stop().catch(() => undefined);
    });

  adminOptions(
    program
      .command("status")
      .description("show what the daemon is doing")
      .option("--json", "print the status as JSON"),
  ).action(async (options: AdminOptions) => {
    const api = await client(options);
    const s = (await api.request("GET", "/v1/status")).body as StatusBody;
    const { agents } = (await api.request("GET", "/v1/agents")).body as { agents: AgentView[] };
    if (options.json === true) {
      io.out(`${JSON.stringify({ url: api.baseUrl, ...s, agents }, null, 2)}\n`);
      return;
    }
    const d = s.deliveries;
    io.out(
      [
        `daemon      ${api.baseUrl} (host ${s.hostId}, database ${s.database})`,
        `claude      ${s.claude.path} ${s.claude.version ?? "(not found: turns fail until it is installed)"}`,
        `turns       ${s.runningTurns} running, at most ${s.concurrency} at once`,
        `deliveries  ${d.accepted} waiting, ${d.running} running, ${d.completed} completed, ${d.failed} failed`,
        `agents      ${agents.length === 0 ? "none registered" : agents.map((a) => a.id).join(", ")}`,
        "",
      ].join("\n"),
    );
  });

  const agent = program.command("agent").description("register, list and reset agents");
  adminOptions(
    agent
      .command("register <agentId>")
      .description("bind an agent to a runtime and a workspace directory (created if missing)")
      .requiredOption("--workspace <dir>", "the agent's working directory")
      .addOption(
        new Option("--runtime <runtime>", "the agent runtime")
          .choices(["claude-code"])
          .default("claude-code"),
      ),
  ).action(
    async (agentId: string, options: AdminOptions & { workspace: string; runtime: string }) => {
      const api = await client(options);
      const response = await api.request("PUT", `/v1/agents/${encodeURIComponent(agentId)}`, {
        runtime: options.runtime,
        workspaceDir: resolve(io.cwd, options.workspace),
      });
      const body = response.body as { outcome: string; agent: AgentView };
      io.out(
        `agent ${body.agent.id} ${body.outcome} (${body.agent.runtime}, workspace ${body.agent.workspaceDir})\n`,
      );
    },
  );

  adminOptions(
    agent.command("list").description("list registered agents").option("--json", "print JSON"),
  ).action(async (options: AdminOptions) => {
    const api = await client(options);
    const body = (await api.request("GET", "/v1/agents")).body as { agents: AgentView[] };
    if (options.json === true) {
      io.out(`${JSON.stringify(body.agents, null, 2)}\n`);
      return;
    }
    if (body.agents.length === 0) io.out("no agents registered\n");
    for (const a of body.agents) io.out(`${a.id}\t${a.runtime}\t${a.workspaceDir}\n`);
  });

  adminOptions(
    agent
      .command("reset <agentId>")
      .description("invalidate all of an agent's sessions (next turns start fresh)"),
  ).action(async (agentId: string, options: AdminOptions) => {
    const api = await client(options);
    const response = await api.request("POST", `/v1/agents/${encodeURIComponent(agentId)}/reset`);
    const body = response.body as { invalidatedSessionIds: string[] };
    io.out(`agent ${agentId} reset; ${body.invalidatedSessionIds.length} session(s) invalidated\n`);
  });

  const token = program.command("token").description("create, list and revoke API tokens");
  adminOptions(
    token
      .command("create")
      .description("create a token (printed once); the message service needs one with scope intake")
      .requiredOption("--name <name>", "who will use it, e.g. message-service")
      .addOption(
        new Option("--scope <scope>", "what it may do")
          .choices(["intake", "admin"])
          .default("intake"),
      ),
  ).action(async (options: AdminOptions & { name: string; scope: string }) => {
    const api = await client(options);
    const response = await api.request("POST", "/v1/tokens", {
      name: options.name,
      scope: options.scope,
    });
    const body = response.body as { id: string; token: string; scope: string };
    io.out(`${body.token}\n`);
    io.err(`token ${body.id} (scope ${body.scope}) created; it is shown only this once\n`);
  });

  adminOptions(token.command("list").description("list tokens (never their values)")).action(
    async (options: AdminOptions) => {
      const api = await client(options);
      const response = await api.request("GET", "/v1/tokens");
      const body = response.body as {
        tokens: { id: string; name: string; scope: string; revokedAt: string | null }[];
      };
      for (const t of body.tokens) {
        io.out(
          `${t.id}\t${t.scope}\t${t.name}${t.revokedAt === null ? "" : `\trevoked ${t.revokedAt}`}\n`,
        );
      }
    },
  );

  adminOptions(token.command("revoke <tokenId>").description("revoke a token")).action(
    async (tokenId: string, options: AdminOptions) => {
      const api = await client(options);
      await api.request("DELETE", `/v1/tokens/${encodeURIComponent(tokenId)}`);
      io.out(`token ${tokenId} revoked\n`);
    },
  );

  return program;
}

interface StatusBody {
  hostId: string;
  database: string;
  concurrency: number;
  runningTurns: number;
  deliveries: Record<"accepted" | "running" | "completed" | "failed", number>;
  claude: { path: string; version: string | null };
}

/** Runs the CLI; returns the exit code. */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runProgram(buildProgram(io), argv, io.err);
}
