import { ApiError, CliError, ConfigError } from "@talkide/service-kit";
import { Command, CommanderError, Option } from "commander";
import { checkModelAccess, loadConfig, type Config } from "./config.ts";
import { DatabaseLockedError, openDatabase } from "./db/connect.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { connectOperator, type Operator, type OperatorOptions } from "./cli-operator.ts";
import { addMemberSchema } from "./domain/members.ts";
import { validateNewUser } from "./domain/users.ts";

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); `serve` then shuts down. */
  readonly stopSignal: Promise<string>;
}

/** Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = new Command("talkide-be")
    .description("The TalkIDE backend: project state, context rendering, Mara's turns.")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  const withDatabase = async <T>(
    work: (config: Config, db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>,
  ): Promise<T> => {
    const config = loadConfig(io.env, io.cwd);
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
    });
    try {
      await migrateToLatest(database.db);
      return await work(config, database);
    } finally {
      await database.close();
    }
  };

  program
    .command("serve")
    .description(
      "Start the HTTP service (the default embedded database unless DATABASE_URL is set).",
    )
    .action(async () => {
      const config = loadConfig(io.env, io.cwd);
      checkModelAccess(config, io.env);
      // Loaded here only: the other commands need none of the service's modules.
      const { startService } = await import("./service.ts");
      const service = await startService({ config, print: io.stdout });
      const signal = await io.stopSignal;
      io.stderr(`Received ${signal}; stopping (running turns are aborted).\n`);
      await service.close();
    });

  program
    .command("migrate")
    .description("Bring the database schema up to date, then exit (serve does this too).")
    .action(async () => {
      await withDatabase(() => {
        io.stderr("The database schema is up to date.\n");
        return Promise.resolve();
      });
    });

  const withOperator = async <T>(
    options: OperatorOptions,
    work: (operator: Operator) => Promise<T>,
  ): Promise<T> => {
    const operator = await connectOperator(loadConfig(io.env, io.cwd), io.env, options);
    try {
      return await work(operator);
    } finally {
      await operator.close();
    }
  };
  // While the service runs, these commands go through its admin API (it holds the embedded
  // database); otherwise they open the database themselves.
  const operatorOptions = (command: Command): Command =>
    command
      .option(
        "--url <url>",
        "a running service's address (default: the one its data directory names, else none: the database directly)",
      )
      .option(
        "--token <token>",
        "the service's admin token (default: TALKIDE_BE_ADMIN_TOKEN, then <data dir>/admin-token)",
      );

  operatorOptions(
    program
      .command("create-user")
      .description("Create a user and print their API token (shown only this once).")
      .requiredOption("--email <email>", "the user's email (never sent to the model)")
      .requiredOption("--name <name>", "the user's display name (never sent to the model)")
      .option("--phone <phone>", "the user's phone number (never sent to the model)"),
  ).action(async (options: { email: string; name: string; phone?: string } & OperatorOptions) => {
    const input = {
      email: options.email,
      displayName: options.name,
      phone: options.phone ?? null,
    };
    // Bad input is refused before the database or the service is even contacted.
    validateNewUser(input);
    await withOperator(options, async (operator) => {
      const { userId, token } = await operator.createUser(input);
      io.stderr(`Created user ${userId}. Their API token follows, shown only this once:\n`);
      io.stdout(`${token}\n`);
    });
  });

  operatorOptions(
    program
      .command("create-token")
      .description("Issue another API token for an existing user (e.g. a lost demo token).")
      .requiredOption("--email <email>", "the user's email"),
  ).action(async (options: { email: string } & OperatorOptions) => {
    await withOperator(options, async (operator) => {
      const token = await operator.createToken(options.email);
      io.stderr("New API token, shown only this once:\n");
      io.stdout(`${token}\n`);
    });
  });

  operatorOptions(
    program
      .command("invite")
      .description(
        "Open a seat in a project and print its one-time invite link: whoever redeems it joins as a new account, or as the account they are signed in to.",
      )
      .requiredOption("--project <id>", "the project's id (1-999)")
      .requiredOption("--salutation <salutation>", "how Mara addresses them")
      .option(
        "--email <email>",
        "a contact note for the owner's list (never used to find an account)",
      )
      .option("--briefing <text>", "their team briefing")
      .addOption(
        new Option("--role <role>", "their role in the project")
          .choices(["member", "owner"])
          .default("member"),
      ),
  ).action(
    async (
      options: {
        project: string;
        email?: string;
        salutation: string;
        briefing?: string;
        role: "member" | "owner";
      } & OperatorOptions,
    ) => {
      const projectId = parseProjectId(options.project);
      const input = parseInvite({
        salutation: options.salutation,
        role: options.role,
        ...(options.email === undefined ? {} : { email: options.email }),
        ...(options.briefing === undefined ? {} : { teamBriefing: options.briefing }),
      });
      await withOperator(options, async (operator) => {
        const { seat, link } = await operator.invite(projectId, input);
        io.stderr(
          `Invited ${seat.salutation} to project ${projectId}. The link works once, until ${link.expiresAt}:\n`,
        );
        io.stdout(`${link.url}\n`);
      });
    },
  );

  operatorOptions(
    program
      .command("sign-in-link")
      .description(
        "Print a one-time sign-in link for an existing account (for a person who lost access).",
      )
      .requiredOption("--email <email>", "the account's email"),
  ).action(async (options: { email: string } & OperatorOptions) => {
    await withOperator(options, async (operator) => {
      const link = await operator.signInLink(options.email);
      io.stderr(`One-time sign-in link, until ${link.expiresAt}:\n`);
      io.stdout(`${link.url}\n`);
    });
  });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    exitCode = reportError(error, io);
  }
  return exitCode;
}

function parseProjectId(raw: string): number {
  if (!/^[1-9][0-9]{0,2}$/.test(raw)) {
    throw new ApiError(
      400,
      "invalid_project_id",
      "--project takes a project's id, a whole number from 1 to 999 (GET /v1/projects lists them).",
      { title: "Invalid project id" },
    );
  }
  return Number(raw);
}

/** The invite's fields under the API's own rules, checked before anything is contacted. */
function parseInvite(input: Record<string, unknown>) {
  const parsed = addMemberSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError(
    400,
    "invalid_invite",
    `The invite's ${String(issue?.path[0] ?? "data")} ${issue?.message ?? "is invalid"}.`,
    { title: "Invalid invite" },
  );
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // Help and version exit 0; commander already printed what went wrong otherwise.
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof ConfigError) {
    io.stderr(`error (${error.code}): ${error.message}\n`);
    return 2;
  }
  if (error instanceof ApiError) {
    io.stderr(`error (${error.code}): ${error.message}\n`);
    return error.httpStatus >= 500 ? 1 : 2;
  }
  if (error instanceof CliError) {
    io.stderr(`error (${error.code}): ${error.message}\n`);
    return error.status !== null && error.status < 500 ? 2 : 1;
  }
  if (error instanceof DatabaseLockedError) {
    io.stderr(`error (${error.code}): ${error.message}\n`);
    return 1;
  }
  const code = (error as { code?: unknown }).code;
  if (code === "EADDRINUSE") {
    const { port, address } = error as { port?: unknown; address?: unknown };
    const where =
      typeof port === "number"
        ? `port ${port}${typeof address === "string" ? ` on ${address}` : ""}`
        : "the configured host and port";
    io.stderr(
      `error (address_in_use): another process already listens on ${where}. ` +
        "Stop it, or choose another port with TALKIDE_PORT.\n",
    );
    return 1;
  }
  io.stderr(
    `error${typeof code === "string" ? ` (${code})` : ""}: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  return 1;
}
