import type { CacheMiss, Turn } from "./api.ts";
import { formatCount, formatExactUsd, formatUsd } from "./format.ts";

/**
 * What a turn's card says, in words a person reads: what it cost, and in one line what it did
 * with the prompt cache and why. The internals (the token split, cache reuse, where the prompt
 * changed) stay one click away in "What Mara sees"; codes appear only in a tooltip or a details
 * line, for bug reports.
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

/**
 * Failures by code, as sentences; the backend's own message speaks for any other code, among
 * them `usage_limit_reached`, whose message names the limit, when it resets and the setting
 * the operator raises it with.
 */
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
 * The cost line: "This turn cost $0.0123 · conversation so far $0.1225" (the conversation's
 * total is the backend's running sum of its turns, so it never falls), and a demo model's
 * label (nobody pays its tokens). A finished turn recorded without a cost (before the LLM
 * gateway, or a CLI that reported none) says "cost not recorded"; a turn still waiting or
 * running says nothing yet.
 */
export function costWords(
  turn: Pick<Turn, "status" | "costUsd" | "cumulativeCostUsd" | "demoModel">,
): string | null {
  const demo = turn.demoModel ? " · demo model: not real money" : "";
  if (turn.costUsd === null) {
    return turn.status === "queued" || turn.status === "running"
      ? null
      : `Cost not recorded${demo}`;
  }
  // Zero: nothing reached the model (a turn refused over a limit, say).
  const cost = turn.costUsd === 0 ? "nothing" : formatUsd(turn.costUsd);
  const total =
    turn.cumulativeCostUsd === null
      ? ""
      : ` · conversation so far ${formatUsd(turn.cumulativeCostUsd)}`;
  return `This turn cost ${cost}${total}${demo}`;
}

/** The exact figures behind the cost line, for its tooltip; null without a cost. */
export function costExactly(turn: Pick<Turn, "costUsd" | "cumulativeCostUsd">): string | null {
  if (turn.costUsd === null) return null;
  const total =
    turn.cumulativeCostUsd === null
      ? ""
      : `; conversation so far exactly ${formatExactUsd(turn.cumulativeCostUsd)}`;
  return `This turn cost exactly ${formatExactUsd(turn.costUsd)}${total}`;
}

/** Why the cache was written again, in the console's words, when the backend names none. */
function missFallback(miss: CacheMiss): string {
  switch (miss.reason) {
    case "new_session":
      return "a new conversation";
    case "ttl_expired":
      return miss.gapMs === null
        ? "the cache expired"
        : `the cache expired after ${formatPause(miss.gapMs)}`;
    case "tools_changed":
      return "Mara's tools changed";
    case "system_changed":
      return "Mara's agent file changed";
    case "messages_changed":
      return "an earlier message changed";
    case "prefix_kept":
      return "only the new message";
  }
}

/** A pause between two messages: "72 min", "3 h", "2 days". */
function formatPause(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

/**
 * Why the turn's cache was written again: the backend's phrase ("the active writer changed",
 * "the roster section changed", "the cache expired after 72 min") when it gives one, the
 * console's words per reason otherwise. A new session is "a new conversation" in the console's
 * words whatever the backend calls it, since the console never says "session".
 */
export function missWords(miss: CacheMiss): string {
  if (miss.reason === "new_session" || miss.phrase === null) return missFallback(miss);
  return miss.phrase;
}

/** The prompt's sections (the provider's caching order) by one of their parts. */
const SECTION_NAMES = { tools: "tool", system: "system block", messages: "message" } as const;

/**
 * Why the cache was written again, with the gateway's details for "What Mara sees": the words,
 * then the reason's code and where the prompt first differed, and the pause against the
 * cache's lifetime: "the roster section changed (messages_changed at message 3, block 1, byte
 * 120)", "the cache expired after 62 min (ttl_expired; 62 min after the last request, the cache
 * keeps 60 min)"; "not recorded" for a turn before the LLM gateway.
 */
export function missDetails(miss: CacheMiss | null): string {
  if (miss === null) return "not recorded";
  const at = miss.position;
  const block = at?.block === null || at?.block === undefined ? "" : `, block ${at.block + 1}`;
  const where =
    at === null
      ? ""
      : ` at ${SECTION_NAMES[at.section]} ${at.index + 1}${block}, byte ${at.offset}`;
  const pause =
    miss.reason === "ttl_expired" && miss.gapMs !== null && miss.ttlMs !== null
      ? `; ${formatPause(miss.gapMs)} after the last request, the cache keeps ${formatPause(miss.ttlMs)}`
      : "";
  return `${missWords(miss)} (${miss.reason}${where}${pause})`;
}

/**
 * The cache line: what the turn wrote to and read from the prompt cache, and why it had to
 * write: "Wrote 13,177 tokens to the cache: a new conversation", "Read 13,020 tokens from the
 * cache, wrote 16 (only the new message)", "Read 13,635 tokens from the cache, wrote 137: the new
 * message, and the active writer changed", "Wrote 3,120 tokens to the cache: the roster section
 * changed; read 10,057 from it". A turn recorded before the LLM gateway (no reason) gives its
 * figures alone; a turn without tokens (waiting, running, or older still) says nothing.
 */
export function cacheWords(turn: Pick<Turn, "usage" | "cacheMiss">): string | null {
  const { usage, cacheMiss } = turn;
  if (usage === null) return null;
  const wrote = usage.cacheCreationInputTokens;
  const read = usage.cacheReadInputTokens;
  if (wrote === 0 && read === 0) return null;
  if (wrote === 0) return `Read ${formatCount(read)} tokens from the cache, wrote nothing new`;
  if (cacheMiss === null) {
    return read === 0
      ? `Wrote ${formatCount(wrote)} tokens to the cache`
      : `Read ${formatCount(read)} tokens from the cache, wrote ${formatCount(wrote)}`;
  }
  if (cacheMiss.reason === "prefix_kept") {
    // With a phrase, the context changed too: the turn wrote the new message and the changed
    // files Claude Code appended ("the active writer changed").
    const what =
      cacheMiss.phrase === null
        ? " (only the new message)"
        : `: the new message, and ${cacheMiss.phrase}`;
    return read === 0
      ? `Wrote ${formatCount(wrote)} tokens to the cache${what}`
      : `Read ${formatCount(read)} tokens from the cache, wrote ${formatCount(wrote)}${what}`;
  }
  const also = read === 0 ? "" : `; read ${formatCount(read)} from it`;
  return `Wrote ${formatCount(wrote)} tokens to the cache: ${missWords(cacheMiss)}${also}`;
}

/** When a message was written: the time today, the date and time before. */
export function formatSentAt(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return at.toDateString() === now.toDateString()
    ? time
    : `${at.toLocaleDateString(undefined, { day: "numeric", month: "short" })} ${time}`;
}
