import { Command, CommanderError } from "commander";
import { checkModelAccess, loadConfig, ConfigError, type Config } from "./config.ts";
import { DatabaseLockedError, openDatabase } from "./db/connect.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { createToken, createUser, validateNewUser } from "./domain/users.ts";
import { AppError } from "./errors.ts";
import { startService, type RunningService } from "./service.ts";

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
      const service: RunningService = await startService({ config, print: io.stdout });
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

  program
    .command("create-user")
    .description("Create a user and print their API token (shown only this once).")
    .requiredOption("--email <email>", "the user's email (never sent to the model)")
    .requiredOption("--name <name>", "the user's display name (never sent to the model)")
    .option("--phone <phone>", "the user's phone number (never sent to the model)")
    .action(async (options: { email: string; name: string; phone?: string }) => {
      const input = {
        email: options.email,
        displayName: options.name,
        phone: options.phone ?? null,
      };
      // Bad input is refused before the database is even opened.
      validateNewUser(input);
      await withDatabase(async (_config, database) => {
        const { user, token } = await createUser(database.db, input);
        io.stderr(`Created user ${user.id}. Their API token follows, shown only this once:\n`);
        io.stdout(`${token}\n`);
      });
    });

  program
    .command("create-token")
    .description("Issue another API token for an existing user (e.g. a lost demo token).")
    .requiredOption("--email <email>", "the user's email")
    .action(async (options: { email: string }) => {
      await withDatabase(async (_config, database) => {
        const token = await createToken(database.db, options.email);
        io.stderr("New API token, shown only this once:\n");
        io.stdout(`${token}\n`);
      });
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    exitCode = reportError(error, io);
  }
  return exitCode;
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
  if (error instanceof AppError) {
    io.stderr(`error (${error.code}): ${error.message}\n`);
    return error.status >= 500 ? 1 : 2;
  }
  if (error instanceof DatabaseLockedError) {
    io.stderr(`error (${error.code}): ${error.message}\n`);
    return 1;
  }
  const code = (error as { code?: unknown }).code;
  if (code === "EADDRINUSE") {
    io.stderr(
      "error (address_in_use): another process already listens on the configured host and port. " +
        "Stop it, or choose another port with TALKIDE_PORT.\n",
    );
    return 1;
  }
  io.stderr(
    `error${typeof code === "string" ? ` (${code})` : ""}: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  return 1;
}
