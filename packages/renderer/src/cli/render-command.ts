import { Command, CommanderError, Option } from "commander";
import { invalidField, type RenderStateError } from "../errors.ts";
import { parseRenderState } from "../parse.ts";
import { renderContextFiles, type ContextFilePath } from "../render.ts";
import { ACTIVE_WRITER_PATH } from "../template.ts";

/**
 * The `talkide-render` command as a function of its arguments and its standard input, so
 * that tests drive exactly what the bin does without a process per run.
 *
 * Runner protocol (contract 1.4): a valid state gives its bytes on stdout and exit 0; an
 * invalid one (including input that is not JSON) gives nothing on stdout, one JSON line
 * `{"code","path"}` on stderr and exit 2. Wrong arguments give a usage message and exit 64.
 */
export const EXIT_RENDERED = 0;
export const EXIT_INVALID_STATE = 2;
export const EXIT_USAGE = 64;

export interface CommandOutcome {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RenderOptions {
  readonly layout: "single" | "split";
  readonly file: ContextFilePath;
}

const FILES: ReadonlyArray<ContextFilePath> = ["CLAUDE.md", ACTIVE_WRITER_PATH];

/** Parses the arguments (without `node` and the script); a usage problem is an outcome. */
export function parseRenderArguments(args: ReadonlyArray<string>): RenderOptions | CommandOutcome {
  let stdout = "";
  let stderr = "";
  const program = new Command("talkide-render")
    .description(
      "Reads a render state (JSON) on standard input and writes CLAUDE.md to standard output.\n" +
        'An invalid state writes one line {"code","path"} to standard error and exits 2.',
    )
    .addOption(
      new Option(
        "--layout <layout>",
        "single: one CLAUDE.md; split: CLAUDE.md importing the active writer's file",
      )
        .choices(["single", "split"])
        .default("single"),
    )
    .addOption(
      new Option("--file <file>", "which file to write (required with --layout split)").choices([
        ...FILES,
      ]),
    )
    .helpOption("-h, --help", "show this help")
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => {
        stdout += text;
      },
      writeErr: (text) => {
        stderr += text;
      },
    });
  try {
    program.parse([...args], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      return { exitCode: error.exitCode === 0 ? 0 : EXIT_USAGE, stdout, stderr };
    }
    throw error;
  }
  const { layout, file } = program.opts<{ layout: "single" | "split"; file?: ContextFilePath }>();
  if (layout === "split" && file === undefined) {
    return usage(
      `talkide-render: --layout split writes two files; choose one with --file <${FILES.join("|")}>\n`,
    );
  }
  if (layout === "single" && file !== undefined && file !== "CLAUDE.md") {
    return usage(
      `talkide-render: --layout single writes only CLAUDE.md; use --layout split for ${file}\n`,
    );
  }
  return { layout, file: file ?? "CLAUDE.md" };
}

/** Renders the state in `input` (the raw bytes of standard input). */
export function runRender(input: Uint8Array, options: RenderOptions): CommandOutcome {
  const state = decodeJson(input);
  if (!state.ok) return refused(state.error);
  const parsed = parseRenderState(state.value);
  if (!parsed.ok) return refused(parsed.error);
  const file = renderContextFiles(parsed.state, { layout: options.layout }).find(
    ({ path }) => path === options.file,
  );
  // parseRenderArguments admits only a file that the chosen layout produces.
  if (file === undefined)
    return usage(`talkide-render: the ${options.layout} layout has no file ${options.file}\n`);
  return { exitCode: EXIT_RENDERED, stdout: file.content, stderr: "" };
}

/**
 * UTF-8 (strictly: a malformed sequence is refused, never replaced) holding one JSON text.
 * A leading byte order mark is skipped, as RFC 8259 allows and as the spec's reference
 * interpreter does. Neither the bytes nor the parser's message (which quotes the input)
 * reach the error.
 */
function decodeJson(
  input: Uint8Array,
): { ok: true; value: unknown } | { ok: false; error: RenderStateError } {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(input);
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: invalidField("", "not_json") };
  }
}

function refused(error: RenderStateError): CommandOutcome {
  return {
    exitCode: EXIT_INVALID_STATE,
    stdout: "",
    stderr: `${JSON.stringify({ code: error.code, path: error.path })}\n`,
  };
}

function usage(message: string): CommandOutcome {
  return { exitCode: EXIT_USAGE, stdout: "", stderr: message };
}
