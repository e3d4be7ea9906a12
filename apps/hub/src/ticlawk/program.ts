import { writeFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { HubClient, type HubAnswer } from "./client.ts";
import { TiclawkFailure, usageFailure } from "./failure.ts";
import { readAttachments, readBody } from "./inputs.ts";

export interface TiclawkIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** The hub's default port (`DEFAULT_HUB_PORT` of its config). */
const DEFAULT_HUB_PORT = 7421;

/**
 * The hub's address as its own configuration reads it, for people running ticlawk by hand
 * next to a hub started with TALKIDE_HUB_HOST / TALKIDE_HUB_PORT. A wildcard host
 * (0.0.0.0, ::) is reached on loopback.
 */
export function hubUrlFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  const rawHost = env["TALKIDE_HUB_HOST"]?.trim() ?? "";
  const host = rawHost === "" || rawHost === "0.0.0.0" || rawHost === "::" ? "127.0.0.1" : rawHost;
  const rawPort = env["TALKIDE_HUB_PORT"]?.trim() ?? "";
  const port = rawPort === "" ? DEFAULT_HUB_PORT : Number(rawPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw usageFailure(
      "invalid_argument",
      "TALKIDE_HUB_PORT must be the hub's port (1–65535); or set TICLAWK_HUB_URL.",
      "TALKIDE_HUB_PORT",
    );
  }
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

const TASK_STATUSES = ["todo", "in_progress", "in_review", "done", "canceled"] as const;

const collect = (value: string, previous: readonly string[]): string[] => [...previous, value];

function parseCount(name: string) {
  return (value: string): number => {
    const n = Number(value.replace(/^#/, ""));
    if (!Number.isSafeInteger(n) || n < 1)
      throw usageFailure("invalid_argument", `${name} must be a whole number of at least 1.`, name);
    return n;
  };
}

/**
 * `ticlawk`: how agents (and people) talk through the hub. Credentials come from the
 * environment, as the daemon sets them for every turn: `TICLAWK_TOKEN` (required),
 * `TICLAWK_HUB_URL` (default: the hub's own `TALKIDE_HUB_HOST`/`TALKIDE_HUB_PORT`, then
 * http://127.0.0.1:7421) and
 * `TICLAWK_TARGET`, the default of `--target` (the conversation of the current turn).
 */
export function buildTiclawkProgram(io: TiclawkIo): Command {
  const program = new Command("ticlawk")
    .description(
      "Talk to people and agents through the message hub: messages, groups, charters, tasks.",
    )
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: () => undefined })
    .showSuggestionAfterError(false);

  const client = (): HubClient => {
    const token = io.env["TICLAWK_TOKEN"]?.trim() ?? "";
    if (token === "") {
      throw new TiclawkFailure(
        "missing_credentials",
        "TICLAWK_TOKEN is not set. Agents get it from the daemon on every turn; a person gets one with: talkide-hub member add --human <handle>.",
      );
    }
    const url = io.env["TICLAWK_HUB_URL"]?.trim() ?? "";
    return new HubClient(url === "" ? hubUrlFromEnv(io.env) : url, token);
  };
  const print = (answer: HubAnswer): void => {
    io.out(answer.text);
  };
  /** `--target` as given, else the conversation of the current turn. */
  const target = (given: string | undefined): string => {
    const value = given ?? io.env["TICLAWK_TARGET"]?.trim() ?? "";
    if (value === "") {
      throw usageFailure(
        "missing_target",
        'Say where: --target "#group", "#group:ROOT", dm:@peer or dm:@peer:ROOT.',
        "target",
      );
    }
    return value;
  };
  const targetOption = () =>
    new Option(
      "--target <target>",
      "#group, #group:ROOT, dm:@peer or dm:@peer:ROOT (default: $TICLAWK_TARGET)",
    );

  const message = program.command("message").description("send, read and react to messages");
  message
    .command("send")
    .description("send a message; the body is read from standard input")
    .addOption(targetOption())
    .option("--attach <path>", "attach a file (repeatable, at most 10)", collect, [])
    .option("--quote <messageId>", "the message this one answers")
    .action(async (options: { target?: string; attach: string[]; quote?: string }) => {
      const to = target(options.target);
      const attachments = await readAttachments(options.attach, io.cwd);
      const body = await readBody(io.stdin);
      print(
        await client().send("POST", "/messages", {
          target: to,
          body,
          attachments,
          quote: options.quote ?? null,
        }),
      );
    });

  message
    .command("read")
    .description("read a conversation, oldest first")
    .addOption(targetOption())
    .option("--around <messageId>", "centre on this message (the target may then be left out)")
    .option("--before <seq>", "only messages before this sequence number", parseCount("--before"))
    .option("--limit <n>", "how many messages (default 50, at most 200)", parseCount("--limit"))
    .action(
      async (options: { target?: string; around?: string; before?: number; limit?: number }) => {
        const to = options.around !== undefined ? options.target : target(options.target);
        print(
          await client().get("/messages", {
            target: to,
            around: options.around,
            before: options.before,
            limit: options.limit,
          }),
        );
      },
    );

  message
    .command("react")
    .description("add (or with --remove, take back) your reaction on a message")
    .requiredOption("--message-id <id>", "the message")
    .requiredOption("--emoji <emoji>", "the reaction, e.g. 👀")
    .option("--remove", "remove your reaction instead")
    .action(async (options: { messageId: string; emoji: string; remove?: boolean }) => {
      print(
        await client().send("POST", "/reactions", {
          messageId: options.messageId,
          emoji: options.emoji,
          remove: options.remove === true,
        }),
      );
    });

  program
    .command("server")
    .description("the server")
    .command("info")
    .description("groups (joined or not), agents and people")
    .action(async () => {
      print(await client().get("/server"));
    });

  program
    .command("group")
    .description("groups")
    .command("members")
    .description("who is in a group, a DM or a thread")
    .addOption(targetOption())
    .action(async (options: { target?: string }) => {
      print(await client().get("/members", { target: target(options.target) }));
    });

  const charter = program.command("charter").description("the conversation's goal and role spec");
  charter
    .command("get")
    .description("show the charter")
    .addOption(targetOption())
    .action(async (options: { target?: string }) => {
      print(await client().get("/charter", { target: target(options.target) }));
    });
  charter
    .command("set")
    .description(
      "replace the charter with standard input (groups: owners and admins; DMs: either party)",
    )
    .addOption(targetOption())
    .option("--clear", "remove the charter instead (reads no input)")
    .action(async (options: { target?: string; clear?: boolean }) => {
      const to = target(options.target);
      const text = options.clear === true ? null : await readBody(io.stdin);
      print(await client().send("PUT", "/charter", { target: to, charter: text }));
    });

  const task = program
    .command("task")
    .description("the task board: tasks are messages with task metadata");
  task
    .command("list")
    .description("the board of a group or DM")
    .addOption(targetOption())
    .addOption(new Option("--status <status>", "only tasks in this status").choices(TASK_STATUSES))
    .action(async (options: { target?: string; status?: string }) => {
      print(
        await client().get("/tasks", { target: target(options.target), status: options.status }),
      );
    });
  task
    .command("create")
    .description("post a new message as a task (body from standard input); it is not claimed")
    .addOption(targetOption())
    .option("--assignee <handle>", "assign it to a member (they are woken with reason=assignment)")
    .option("--title <title>", "a short title")
    .option("--attach <path>", "attach a file (repeatable, at most 10)", collect, [])
    .action(
      async (options: { target?: string; assignee?: string; title?: string; attach: string[] }) => {
        const to = target(options.target);
        const attachments = await readAttachments(options.attach, io.cwd);
        const body = await readBody(io.stdin);
        print(
          await client().send("POST", "/tasks", {
            target: to,
            body,
            attachments,
            assignee: options.assignee ?? null,
            title: options.title ?? null,
          }),
        );
      },
    );

  const selectorCommand = (name: string, description: string): Command =>
    task
      .command(name)
      .description(description)
      .addOption(targetOption())
      .option(
        "--number <n>",
        "the task number on the target's board (task #N)",
        parseCount("--number"),
      )
      .option(
        "--message-id <id>",
        "the message (any top-level message; the target may be left out)",
      );
  const selector = (options: { target?: string; number?: number; messageId?: string }) => {
    if (options.number === undefined && options.messageId === undefined) {
      throw usageFailure(
        "missing_task",
        "Say which task: --number <n> or --message-id <id>.",
        "number",
      );
    }
    return {
      // A message id finds its conversation by itself; only an explicit target is checked against it.
      target: options.messageId !== undefined ? (options.target ?? null) : target(options.target),
      number: options.number ?? null,
      messageId: options.messageId ?? null,
    };
  };
  selectorCommand(
    "claim",
    "claim a task (a plain message becomes a task); fails if someone else holds it",
  ).action(async (options: { target?: string; number?: number; messageId?: string }) => {
    print(await client().send("POST", "/tasks/claim", selector(options)));
  });
  selectorCommand("unclaim", "release your claim").action(
    async (options: { target?: string; number?: number; messageId?: string }) => {
      print(await client().send("POST", "/tasks/unclaim", selector(options)));
    },
  );
  selectorCommand(
    "update",
    "change a task's status: todo → in_progress → in_review → done, or canceled",
  )
    .addOption(
      new Option("--status <status>", "the new status")
        .choices(TASK_STATUSES)
        .makeOptionMandatory(),
    )
    .action(
      async (options: { target?: string; number?: number; messageId?: string; status: string }) => {
        print(
          await client().send("POST", "/tasks/status", {
            ...selector(options),
            status: options.status,
          }),
        );
      },
    );

  program
    .command("attachment")
    .description("files that came with messages")
    .command("get")
    .description("save an attachment (the id a wake message names) in the working directory")
    .argument("<id>", "the attachment's id")
    .option("--out <path>", "where to save it (default: its file name, in the working directory)")
    .action(async (id: string, options: { out?: string }) => {
      const { bytes, fileName } = await client().download(`/attachments/${encodeURIComponent(id)}`);
      const path = resolve(io.cwd, options.out ?? safeFileName(fileName, id));
      try {
        // Never overwrite: an agent's workspace holds its memory and its work.
        await writeFile(path, bytes, { flag: "wx" });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new TiclawkFailure(
          code === "EEXIST" ? "file_exists" : "cannot_write",
          code === "EEXIST"
            ? `${path} exists already; choose another place with --out <path>.`
            : `Cannot write ${path} (${code ?? "error"}).`,
          { path: "out" },
        );
      }
      io.out(`saved ${path} (${String(bytes.byteLength)} bytes)\n`);
    });

  for (const [name, what] of [
    ["reminder", "reminders (schedule, snooze, update, cancel)"],
    ["service", "shared services (list, info, call)"],
  ] as const) {
    program
      .command(name)
      .description(`${what}: not supported by this hub`)
      .argument("[args...]")
      .allowUnknownOption()
      .helpOption(false)
      .action(() => {
        throw new TiclawkFailure(
          "not_supported",
          `\`ticlawk ${name}\` is not supported by this hub: the local hub (talkide-hub) has no ${name}s. Nothing was done.`,
        );
      });
  }

  return program;
}

/** Runs the CLI; returns the exit code. Failures are printed as one JSON line on `err`. */
export async function runTiclawk(argv: readonly string[], io: TiclawkIo): Promise<number> {
  const program = buildTiclawkProgram(io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof TiclawkFailure) {
      io.err(`${error.toJson()}\n`);
      return error.exitCode;
    }
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0 and their text already printed.
      if (error.exitCode === 0) return 0;
      const message =
        error.code === "commander.help"
          ? "This command needs a subcommand; add --help to list them."
          : `${error.message.replace(/^error: /, "")} (see ticlawk --help)`;
      const failure = usageFailure("usage_error", message);
      io.err(`${failure.toJson()}\n`);
      return failure.exitCode;
    }
    const failure = new TiclawkFailure(
      "internal_error",
      error instanceof Error ? error.message : String(error),
    );
    io.err(`${failure.toJson()}\n`);
    return 1;
  }
}

/** The attachment's own base name when it is a usable one, else its id. */
function safeFileName(fileName: string, id: string): string {
  const base = basename(fileName);
  return base === "" || base === "." || base === ".." || base !== fileName ? id : base;
}
