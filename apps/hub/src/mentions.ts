import { nameKey } from "./names.ts";

/**
 * `@handle` mentions in a message body, as handle keys (case-folded). A mention starts at
 * `@` that does not follow a name character (so `bob@example.com` is no mention) and takes
 * the longest run of safe characters; trailing dots, dashes and underscores are sentence
 * punctuation ("thanks @cook.") unless the handle really ends in them, so both forms are
 * returned and the caller keeps the ones that name a member.
 */
const MENTION = /(?<![\p{L}\p{Nd}._-])@([\p{L}\p{Nd}._-]{1,64})/gu;

export function mentionedKeys(body: string): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const match of body.normalize("NFC").matchAll(MENTION)) {
    const raw = match[1];
    if (raw === undefined) continue;
    keys.add(nameKey(raw));
    const trimmed = raw.replace(/[._-]+$/u, "");
    if (trimmed !== "") keys.add(nameKey(trimmed));
  }
  return keys;
}
