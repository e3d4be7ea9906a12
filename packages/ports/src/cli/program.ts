import { Argument, Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { check } from "./check.ts";
import { EXIT, type ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";
import { PROJECT_YML_PATH } from "./project-file.ts";
import { parseYmlCommand, renderYmlCommand } from "./runner.ts";
import { show } from "./show.ts";
import { stop } from "./stop.ts";
import { DEFAULT_GRACE_MS, type PortTarget } from "./stop-holder.ts";

const EXIT_CODE_HELP = `
Ports come only from <project-dir>/${PROJECT_YML_PATH}; no command takes a port number.

Exit codes:
  0   done (shown; all ports free; port stopped or already free; rendered or parsed)
  1   unexpected error
  2   ${PROJECT_YML_PATH} missing, unreadable or invalid (runner commands: invalid input)
  3   check: a port is busy; ask the user, never pick another port
  4   stop: refused (platform port, port not in the file, holder not identifiable)
  5   stop: could not signal the holder, or the port is still busy afterwards
  64  usage error`;

interface DirOptions {
  readonly projectDir?: string;
  readonly json?: boolean;
}

/** Runs the `talkide-ports` command line and returns its exit code; never calls process.exit. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT.ok;
  const program = new Command("talkide-ports")
    .description(
      "This project's ports, from .talkide/project.yml: show them, check them, stop their holder.",
    )
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .addHelpText("after", EXIT_CODE_HELP)
    .showHelpAfterError("(run talkide-ports --help for usage)");

  const projectDirOption = (): Option =>
    new Option("--project-dir <dir>", "the project directory (default: the current directory)");
  const jsonOption = (): Option => new Option("--json", "machine-readable output");
  const dirOf = (options: DirOptions): string => options.projectDir ?? io.cwd;

  program
    .command("show")
    .description("print the project's ports and URLs")
    .addOption(projectDirOption())
    .addOption(jsonOption())
    .action(async (options: DirOptions) => {
      exitCode = await show(io, { projectDir: dirOf(options), json: options.json === true });
    });

  program
    .command("check")
    .description("check that the project's ports are free; report what holds a busy one")
    .addOption(projectDirOption())
    .addOption(jsonOption())
    .action(async (options: DirOptions) => {
      exitCode = await check(io, {
        projectDir: dirOf(options),
        projectDirGiven: options.projectDir !== undefined,
        json: options.json === true,
      });
    });

  program
    .command("stop")
    .description(
      "stop the process holding this project's own BE or FE port (SIGTERM, then SIGKILL)",
    )
    .addArgument(new Argument("<target>", "which of the project's ports").choices(["be", "fe"]))
    .addOption(projectDirOption())
    .addOption(jsonOption())
    .addOption(
      new Option("--grace-ms <ms>", "time between SIGTERM and SIGKILL")
        .default(DEFAULT_GRACE_MS)
        .argParser(parseGraceMs),
    )
    .action(async (target: PortTarget, options: DirOptions & { readonly graceMs: number }) => {
      exitCode = await stop(io, target, {
        projectDir: dirOf(options),
        json: options.json === true,
        graceMs: options.graceMs,
      });
    });

  program
    .command("render-yml")
    .description('runner protocol: {"projectId": N} on stdin -> project.yml bytes on stdout')
    .action(async () => {
      exitCode = await renderYmlCommand(io);
    });

  program
    .command("parse-yml")
    .description("runner protocol: project.yml bytes on stdin -> its values as JSON on stdout")
    .action(async () => {
      exitCode = await parseYmlCommand(io);
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  return exitCode;
}

function parseGraceMs(value: string): number {
  if (!/^[0-9]{1,6}$/.test(value) || Number(value) > 600_000) {
    throw new InvalidArgumentError("expected milliseconds, an integer from 0 to 600000.");
  }
  return Number(value);
}
