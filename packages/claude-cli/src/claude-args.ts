import { ClaudeCliError } from "./errors.ts";

export interface ClaudeArgsOptions {
  /** Resume this session (`--resume <id>`); omit to start a fresh session. */
  readonly resumeSessionId?: string | undefined;
  /**
   * Resume the session at this message (`--resume-session-at <uuid>`, needs `resumeSessionId`):
   * the transcript after it (a failed turn) is left out of the conversation. Pass the
   * `lastMessageId` of the session's last successful turn.
   */
  readonly resumeAtMessageId?: string | undefined;
  /** Appended to the default system prompt on this turn (`--append-system-prompt <text>`). */
  readonly appendSystemPrompt?: string | undefined;
  /** A plugin directory to load for this turn (`--plugin-dir <dir>`). */
  readonly pluginDir?: string | undefined;
  /** The main agent of the turn (`--agent <name>`), e.g. one defined by the plugin. */
  readonly agent?: string | undefined;
  /** Passed through last, unchanged (e.g. `--exclude-dynamic-system-prompt-sections`). */
  readonly extraArgs?: readonly string[] | undefined;
}

/**
 * Linux refuses a single argv string longer than MAX_ARG_STRLEN (32 pages = 128 KiB,
 * counting its terminating NUL) with E2BIG; checking first turns an opaque spawn failure
 * into an error that names the option.
 */
export const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

/** The flags every turn needs: print mode, streamed JSON events (which requires --verbose). */
const PRINT_STREAM_JSON = ["-p", "--output-format", "stream-json", "--verbose"] as const;

/**
 * The exact argv (without the executable) for one print-mode turn. The prompt is not an
 * argument: it goes to standard input, so its size and content never meet argv limits.
 * Throws `ClaudeCliError` (`invalid_option` / `argument_too_long`) for unusable values.
 */
export function buildClaudeArgs(options: ClaudeArgsOptions = {}): string[] {
  const args: string[] = [...PRINT_STREAM_JSON];
  if (options.resumeSessionId !== undefined) {
    args.push("--resume", flagValue("resumeSessionId", options.resumeSessionId));
  }
  if (options.resumeAtMessageId !== undefined) {
    if (options.resumeSessionId === undefined) {
      throw new ClaudeCliError(
        "invalid_option",
        "resumeAtMessageId",
        "resumeAtMessageId needs resumeSessionId: a resume point only exists inside a resumed session.",
      );
    }
    args.push("--resume-session-at", flagValue("resumeAtMessageId", options.resumeAtMessageId));
  }
  if (options.appendSystemPrompt !== undefined) {
    args.push(
      "--append-system-prompt",
      argument("appendSystemPrompt", options.appendSystemPrompt, { allowEmpty: false }),
    );
  }
  if (options.pluginDir !== undefined) {
    args.push("--plugin-dir", flagValue("pluginDir", options.pluginDir));
  }
  if (options.agent !== undefined) {
    args.push("--agent", flagValue("agent", options.agent));
  }
  (options.extraArgs ?? []).forEach((extra, index) => {
    args.push(argument(`extraArgs[${index}]`, extra, { allowEmpty: false }));
  });
  return args;
}

/** A value that must not be mistaken for a flag by the CLI's option parser. */
function flagValue(path: string, value: string): string {
  const checked = argument(path, value, { allowEmpty: false });
  if (checked.startsWith("-") || checked.trim() !== checked) {
    throw new ClaudeCliError(
      "invalid_option",
      path,
      `${path} must not start with "-" or carry surrounding whitespace (got ${JSON.stringify(checked.slice(0, 80))}).`,
    );
  }
  return checked;
}

function argument(path: string, value: unknown, { allowEmpty }: { allowEmpty: boolean }): string {
  if (typeof value !== "string") {
    throw new ClaudeCliError("invalid_option", path, `${path} must be a string.`);
  }
  if (!allowEmpty && value === "") {
    throw new ClaudeCliError("invalid_option", path, `${path} must not be empty; omit it instead.`);
  }
  if (value.includes("\0")) {
    throw new ClaudeCliError(
      "invalid_option",
      path,
      `${path} contains a NUL character, which no command-line argument can carry.`,
    );
  }
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > MAX_ARGUMENT_BYTES) {
    throw new ClaudeCliError(
      "argument_too_long",
      path,
      `${path} is ${bytes} bytes; one command-line argument holds at most ${MAX_ARGUMENT_BYTES}. Shorten it.`,
    );
  }
  return value;
}
