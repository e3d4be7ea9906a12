import type { Turn } from "./api.ts";

/**
 * What a turn's card says, in words a person reads. The internals (token counts, cache
 * figures, the reason codes) stay one click away in "What Mara sees"; codes appear only in a
 * tooltip or a details line, for bug reports.
 */

type Wording = Pick<
  Turn,
  | "status"
  | "author"
  | "stoppedBy"
  | "memberId"
  | "startedAt"
  | "finishedAt"
  | "createdAt"
  | "process"
  | "coldReason"
  | "context"
  | "error"
>;

/** The writer's salutation: the turn's own `author`, else the roster's, else a placeholder. */
export function authorOf(
  turn: { readonly author?: string; readonly memberId: string },
  members: ReadonlyArray<{ readonly id: string; readonly salutation: string }>,
): string {
  return (
    turn.author ?? members.find((m) => m.id === turn.memberId)?.salutation ?? "a former member"
  );
}

/** A duration as people say it: "3.1 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(Math.max(ms, 0) / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

function elapsed(from: string | null, to: string | null): number | null {
  if (from === null || to === null) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? ms : null;
}

/** The card's status line: who Mara works for, how long an answer took, who stopped it. */
export function statusWords(turn: Wording, author: string): string {
  // From the message to the end: how long the writer waited, queue included.
  const took = elapsed(turn.createdAt, turn.finishedAt);
  const after = took === null ? "" : ` after ${formatDuration(took)}`;
  switch (turn.status) {
    case "queued":
      return "Waiting: Mara answers the messages before it first.";
    case "running":
      return `Mara is working for ${author}…`;
    case "succeeded":
      return took === null ? "Answered." : `Answered in ${formatDuration(took)}.`;
    case "failed":
      return `Failed${after}.`;
    case "stopped":
      return turn.stoppedBy ? `Stopped by ${turn.stoppedBy}${after}.` : `Stopped${after}.`;
  }
}

/** Failures by code, as sentences; the backend's own message speaks for any other code. */
const FAILURES: Readonly<Record<string, string>> = {
  turn_aborted: "The answer was cut off before it was complete. Retry to ask again.",
  turn_timeout: "Mara took too long to answer, so the turn was ended. Retry to ask again.",
  claude_crashed: "Mara's process ended unexpectedly. Retry to ask again.",
  claude_spawn_failed: "Mara could not be started on the server. Ask whoever runs the service.",
  claude_binary_missing:
    "Claude Code is not installed on the server, so Mara cannot answer. Ask whoever runs the service.",
  model_unavailable: "The model service did not answer. Retry in a moment.",
  service_restarted: "The service restarted while Mara was working. Retry to ask again.",
  lease_expired: "The server running this turn stopped answering. Retry to ask again.",
  internal_error: "Something went wrong inside the service. Retry, and report it if it repeats.",
  member_removed: "The writer was removed from the project before Mara got to the message.",
  workspace_not_isolated:
    "The project's workspace is not safely separated from other files, so Mara did not start. Ask whoever runs the service.",
  workspace_check_failed:
    "The project's workspace could not be checked, so Mara did not start. Ask whoever runs the service.",
};

/** A failed turn's error in a sentence for people (the code goes in a tooltip). */
export function failureWords(error: { readonly code: string; readonly message: string }): string {
  return FAILURES[error.code] ?? error.message;
}

/** Why Mara re-read the project before this turn, in words; null when she carried on. */
export function rereadWords(turn: Wording, author: string): string | null {
  if (turn.status === "queued" || turn.process !== "cold") return null;
  const changed = new Set(turn.context?.files.filter((f) => f.changed).map((f) => f.path));
  switch (turn.coldReason) {
    case "new_session":
      return "Mara read the project to start a new conversation.";
    case "context_changed":
      if ([...changed].some((path) => path.endsWith("active-writer.md"))) {
        return `Mara re-read the project because ${author} started writing.`;
      }
      if (changed.has("CLAUDE.md")) {
        return "Mara re-read the project because its description or team changed.";
      }
      // None of the backend's files changed: what she reads beside them did (an instruction
      // file someone put in the workspace, say).
      return "Mara re-read the project because the instructions she reads changed.";
    case "idle_timeout":
      return "Mara re-read the project after a pause.";
    case "previous_turn_failed":
      return "Mara re-read the project because the previous turn did not finish.";
    case null:
      return null;
    default:
      return "Mara re-read the project to continue the conversation.";
  }
}

/**
 * The cost line: "cost $0.0498 · conversation so far $0.0996", and a demo model's label
 * (the CLI prices its tokens, but nobody pays them); null when the CLI reported no cost.
 */
export function costWords(
  turn: Pick<Turn, "costUsd" | "cumulativeCostUsd" | "demoModel">,
): string | null {
  if (turn.costUsd === null) return null;
  const total =
    turn.cumulativeCostUsd === null
      ? ""
      : ` · conversation so far $${turn.cumulativeCostUsd.toFixed(4)}`;
  const demo = turn.demoModel ? " · demo model, not real money" : "";
  return `cost $${turn.costUsd.toFixed(4)}${total}${demo}`;
}

/** When a message was written: the time today, the date and time before. */
export function formatSentAt(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return at.toDateString() === now.toDateString()
    ? time
    : `${at.toLocaleDateString(undefined, { day: "numeric", month: "short" })} ${time}`;
}
