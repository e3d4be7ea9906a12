/**
 * The CLI's fallbacks that change what every later request of a session sends (issue 28, part 5).
 *
 * When a gateway refuses deferred tools (`defer_loading`, the CLI's tool search) with a 400, the
 * pinned CLI (2.1.330) turns tool search off for the session: its next request declares every
 * tool in full (21 instead of 12) and tells the model so in a system-role reminder. Its
 * stream-json output says nothing about it (measured: `system/init`, `assistant`, `result`, the
 * same as a turn without the refusal; no `api_retry` event for a 400). What it writes to the
 * session's transcript does: an `attachment` line of type `critical_system_reminder` whose
 * content starts with `ToolSearch is no longer available`. Both apps read what a turn appended
 * to the transcript after every turn (`transcriptAfterTurn`), so the turn that fell back can
 * record it: the backend's `turns.cli_fallback` (migration 0012), the daemon's (migration 0007).
 *
 * A refusal of one beta header (the CLI retries once without it) leaves no such line and costs
 * nothing later, so it is not recorded.
 */
import type { TurnTranscript } from "./turn-transcript.ts";

/** A fallback of the CLI that makes every later request of its session heavier. */
export type CliFallback = "tool_search_off";

/** The reminder's opening words in Claude Code 2.1.330 (a CLI bump that rewords it shows in the wire test). */
const TOOL_SEARCH_OFF = "ToolSearch is no longer available";

interface ReminderLine {
  readonly type?: unknown;
  readonly timestamp?: unknown;
  readonly attachment?: { readonly type?: unknown; readonly content?: unknown } | null;
}

function parsed(line: string): ReminderLine | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? value : null;
  } catch {
    return null;
  }
}

function isToolSearchOff(line: ReminderLine): boolean {
  const attachment = line.attachment;
  return (
    line.type === "attachment" &&
    typeof attachment === "object" &&
    attachment !== null &&
    attachment.type === "critical_system_reminder" &&
    typeof attachment.content === "string" &&
    attachment.content.startsWith(TOOL_SEARCH_OFF)
  );
}

/**
 * The fallback the transcript lines `content` show, written at or after `since` (ms; lines
 * without a readable timestamp count), or null.
 */
export function cliFallbackIn(content: string, since: number | null = null): CliFallback | null {
  for (const text of content.split("\n")) {
    if (!text.includes(TOOL_SEARCH_OFF)) continue;
    const line = parsed(text);
    if (line === null || !isToolSearchOff(line)) continue;
    const at = typeof line.timestamp === "string" ? Date.parse(line.timestamp) : Number.NaN;
    if (since !== null && !Number.isNaN(at) && at < since) continue;
    return "tool_search_off";
  }
  return null;
}

/**
 * The fallback a successful turn caused: in what it appended to the transcript, or, when the
 * whole transcript was read (a new session, or a resume this instance had not read before),
 * in the lines written since the turn started (`startedAt`, ms; null reads them all). Only that
 * rarer case compares clocks (the database's start time with the CLI's line timestamps); a
 * line of an earlier turn is then seen again only if the clocks differ by more than the time
 * between the two turns.
 */
export function cliFallbackOfTurn(
  transcript: TurnTranscript | null,
  startedAt: number | null,
): CliFallback | null {
  if (transcript === null) return null;
  if (transcript.appended !== null) return cliFallbackIn(transcript.appended.delta);
  return cliFallbackIn(transcript.whole().content, startedAt);
}
