// The backend's user turn: one fixed line of ours, a blank line, then the member's words in
// their import-safe form (spec/member-message.md). Claude Code derives its billing header, the
// first system block of every request and part of every cache key after it, from characters
// 4, 7 and 20 of a session's first prompt; with the same first line for every project and
// member, a new session reads the cached tools and system prompt of the sessions before it.
import { importSafe } from "../text/import-safe.ts";

/** The first line of every backend prompt (spec/member-message.md): who wrote what follows. */
export const MEMBER_MESSAGE_HEADER = "Message from the active writer:";

/** The prompt for one member message: the header, a blank line, `importSafe(words)`. */
export function buildMemberMessage(words: string): string {
  return `${MEMBER_MESSAGE_HEADER}\n\n${importSafe(words)}`;
}
