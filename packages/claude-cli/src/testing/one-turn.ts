import { buildClaudeArgs, type ClaudeArgsOptions } from "../claude-args.ts";
import {
  validateTurnOptions,
  type WarmProcessOptions,
  type WarmTurnOptions,
} from "../turn-options.ts";
import type { ClaudeTurnResult } from "../turn-result.ts";
import { WarmClaudeProcess } from "../warm-process.ts";

/** A process's options without its argv (built from the `ClaudeArgsOptions`), and one turn's. */
export type OneTurnOptions = ClaudeArgsOptions &
  Omit<WarmProcessOptions, "args" | "tag" | "watchdog"> &
  WarmTurnOptions;

/**
 * One turn through the one way this package runs the CLI, for tests, benchmarks and the wire
 * probe: a `WarmClaudeProcess` is started (`buildClaudeArgs(options)`, stream-json input, as
 * the apps start a cold turn), runs one turn and is ended; resolves once it has exited, so
 * the session's transcript is complete for the next resume. Invalid options throw
 * (`ClaudeCliError`) before anything is spawned.
 */
export async function runOneTurn(options: OneTurnOptions): Promise<ClaudeTurnResult> {
  validateTurnOptions(options);
  const process = await WarmClaudeProcess.start({
    claudePath: options.claudePath,
    cwd: options.cwd,
    env: options.env,
    args: buildClaudeArgs(options),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
  });
  try {
    return await process.runTurn({
      prompt: options.prompt,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onEvent: options.onEvent,
    });
  } finally {
    await process.end();
  }
}
