import type { ChangedText, MissExplanation } from "@talkide/gateway";
import { BRIEFING_LINE, SECTIONS } from "../context/claude-md-sections.ts";

/** Where Claude Code quotes one of our files in its reminder (WIRE-NOTES.md of @talkide/claude-cli). */
const OUR_FILE = /^Contents of .*\/(?:CLAUDE\.md|\.talkide\/active-writer\.md) \(/;

/**
 * The backend's words for why a turn's first request missed the provider's prompt cache (the
 * gateway's `nameMiss`), or null for a change it cannot place.
 */
export function nameCacheMiss(miss: MissExplanation, changed: ChangedText | null): string | null {
  switch (miss.reason) {
    case "new_session":
      return "a new session started";
    case "ttl_expired":
      return `the cache expired after ${Math.round((miss.gapMs ?? 0) / 60_000)} min`;
    case "tools_changed":
      return "the CLI's tool list changed";
    case "system_changed":
      return "the agent file changed";
    case "messages_changed":
      return changed === null || miss.position === null
        ? null
        : claudeMdSection(changed, miss.position.offset);
    case "prefix_kept":
      return null;
  }
}

/** The section of our files that holds the byte at `offset` (UTF-8) of the changed text. */
function claudeMdSection(changed: ChangedText, offset: number): string | null {
  // The longer text holds the changed byte (the shorter one may end right before it).
  const text = Buffer.byteLength(changed.after) > offset ? changed.after : changed.before;
  const lines = Buffer.from(text, "utf8").subarray(0, offset).toString("utf8").split("\n");
  // The line the changed byte is on, up to it: a member's quoted briefing under `# Tým`?
  const briefing = BRIEFING_LINE.test(lines.at(-1) ?? "");
  let heading: string | null = null;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i] ?? "";
    // The latest `Contents of …` line above the byte says whose file it is in.
    if (line.startsWith("Contents of ")) {
      if (!OUR_FILE.test(line) || heading === null) return null;
      if (heading === "# Tým" && briefing) return "a briefing changed";
      return SECTIONS.find(([h]) => h === heading)?.[1] ?? null;
    }
    if (heading === null && SECTIONS.some(([h]) => h === line)) heading = line;
  }
  return null;
}
