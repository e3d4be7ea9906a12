import {
  mayWriteCharter,
  placeOfConversation,
  resolveTarget,
  type Place,
} from "./conversations.ts";
import { badRequest, forbidden } from "./errors.ts";
import { checkText, isBlank, LIMITS } from "./input.ts";
import type { HubDb, MemberRow } from "./schema.ts";

/**
 * A conversation's charter: its goal and role spec, shown to agents as the `[charter]` block
 * of every wake message. Groups and DMs have one; a thread shares its parent's.
 */
export async function getCharter(
  db: HubDb,
  caller: MemberRow,
  target: string,
): Promise<{ readonly place: Place; readonly charter: string | null }> {
  const place = await topPlace(db, caller, target);
  return { place, charter: place.top.charter };
}

/**
 * Sets (or, with null, clears) a charter. In a group this needs the owner or admin role; in a
 * DM either party may, the agent included.
 */
export async function setCharter(
  db: HubDb,
  caller: MemberRow,
  input: { readonly target: string; readonly charter: string | null },
): Promise<{ readonly place: Place; readonly charter: string | null }> {
  const place = await topPlace(db, caller, input.target);
  if (!mayWriteCharter(place)) {
    throw forbidden(
      "charter_forbidden",
      `Only owners and admins of ${place.target} may change its charter (your role: ${place.role}). Propose the change in the group instead.`,
    );
  }
  let charter: string | null = null;
  if (input.charter !== null) {
    charter = checkText(input.charter, { path: "charter", maxChars: LIMITS.charterChars });
    if (isBlank(charter)) {
      throw badRequest(
        "empty_charter",
        "The charter is empty; to remove it, use --clear.",
        "charter",
      );
    }
  }
  const top = await db
    .updateTable("hub_conversations")
    .set({ charter })
    .where("id", "=", place.top.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { place: { ...place, top, conversation: top }, charter };
}

async function topPlace(db: HubDb, caller: MemberRow, target: string): Promise<Place> {
  const place = await resolveTarget(db, caller, target);
  return place.conversation.kind === "thread"
    ? placeOfConversation(db, caller, place.top.id)
    : place;
}
