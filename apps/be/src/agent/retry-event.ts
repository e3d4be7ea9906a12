import type { EventPayload } from "@talkide/be-api";
import type { ApiRetry } from "@talkide/claude-cli";

/**
 * The `agent.api_retry` event of a turn: Claude Code could not reach the model (or the model
 * API answered with an error) and retries after a pause. Without it a turn against a failing
 * API shows nothing for minutes. Carries numbers and the CLI's short error kind only.
 */
export function apiRetryEventData(retry: ApiRetry): EventPayload<"agent.api_retry"> {
  const answered = retry.status === null ? "could not be reached" : `answered ${retry.status}`;
  const kind = retry.error === null ? "" : ` (${retry.error})`;
  const of = retry.maxRetries === null ? "" : ` of ${retry.maxRetries}`;
  const wait = retry.delayMs === null ? "" : ` in ${(retry.delayMs / 1000).toFixed(1)} s`;
  return {
    attempt: retry.attempt,
    maxRetries: retry.maxRetries,
    delayMs: retry.delayMs,
    status: retry.status,
    error: retry.error,
    message: `The model API ${answered}${kind}; Claude Code retries (attempt ${retry.attempt}${of})${wait}.`,
  };
}
