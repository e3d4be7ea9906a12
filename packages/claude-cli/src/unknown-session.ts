import type { ClaudeTurnResult } from "./run-claude-turn.ts";

/**
 * What Claude Code prints (in the result's `errors[]` and on stderr) when `--resume` names a
 * session it does not have: "No conversation found with session ID: <id>" (2.1.330).
 */
const UNKNOWN_SESSION_TEXT = "No conversation found with session ID";

/**
 * True when a resumed turn failed because the CLI does not know the session (its transcript
 * was deleted, or the id never existed). The caller should start a fresh session rather
 * than retry the resume.
 */
export function isUnknownSessionFailure(result: ClaudeTurnResult): boolean {
  return (
    !result.ok && result.reason === "is_error" && result.message.includes(UNKNOWN_SESSION_TEXT)
  );
}
