import type { ClaudeTurnResult } from "./turn-result.ts";

/**
 * True when a resumed turn failed because the CLI cannot resume where it was asked to: it
 * does not know the session ("No conversation found with session ID", its transcript was
 * deleted or the id never existed) or the session lacks the message named by
 * `resumeAtMessageId` ("No message found with message.uuid of"). Nothing reached the model;
 * the caller should start a fresh session rather than retry the resume.
 */
export function isUnknownSessionFailure(result: ClaudeTurnResult): boolean {
  return (
    !result.ok &&
    result.reason === "is_error" &&
    result.runtimeError?.kind === "session_unavailable"
  );
}
