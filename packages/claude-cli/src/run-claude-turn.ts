import { resolve } from "node:path";
import { buildClaudeArgs } from "./claude-args.ts";
import { validateTurnOptions, type RunClaudeTurnOptions } from "./turn-options.ts";
import { checkBeforeSpawn } from "./turn-preflight.ts";
import { failure, type ClaudeTurnResult } from "./turn-result.ts";
import { superviseTurn } from "./turn-supervisor.ts";

export { DEFAULT_KILL_GRACE_MS, type RunClaudeTurnOptions } from "./turn-options.ts";
export type {
  ClaudeTurnFailure,
  ClaudeTurnFailureReason,
  ClaudeTurnResult,
  ClaudeTurnSuccess,
} from "./turn-result.ts";

/**
 * Runs one print-mode turn of the Claude Code CLI and reads its stream-json output.
 *
 * The child is the leader of its own process group, so a timeout or an abort terminates
 * everything the turn started (tools, shells): SIGTERM to the group, SIGKILL after
 * `killGraceMs`. Runtime failures (missing binary, failed spawn, timeout, crash, an
 * `is_error` result, unreadable output, abort) are returned, never thrown; only invalid
 * options throw (`ClaudeCliError`), before anything is spawned.
 */
export async function runClaudeTurn(options: RunClaudeTurnOptions): Promise<ClaudeTurnResult> {
  validateTurnOptions(options);
  const args = buildClaudeArgs(options);
  if (options.signal?.aborted === true) {
    return failure("aborted", "The turn was aborted before Claude Code was started.");
  }
  const executable = options.claudePath.includes("/")
    ? resolve(options.claudePath)
    : options.claudePath;
  const preflightFailure = await checkBeforeSpawn(executable, options.cwd);
  if (preflightFailure !== null) return preflightFailure;
  return superviseTurn(executable, args, options);
}
