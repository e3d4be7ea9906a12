import type { SessionPoint } from "@talkide/claude-cli";
import { pointOfSession, type SessionRow } from "./store/session-store.ts";

/**
 * What a turn does with the session it finds open, decided once for both hosts (README,
 * "Decided once"). A session begins with its first successful turn: only then does it have a
 * point (the CLI's session and the message that turn ended at) to resume at.
 *
 * - `new`: no session is open: the turn starts one;
 * - `begin`: the session has not begun (none of its turns succeeded): the turn starts the CLI
 *   afresh in it. Never a `--resume` of a failed first turn's CLI session: the CLI keeps a
 *   transcript of it, but one holding only the refused message and the runtime's error, with
 *   no successful message to resume at, so a resume would send them again. Nothing of a
 *   conversation is in it, so a host that pinned it to something else (release, standing
 *   prompt) moves it to what it runs now instead of ending it visibly;
 * - `end`: a begun session pinned to another release or standing prompt: ended visibly, the
 *   turn starts a new one;
 * - `continue`: resumed at its point.
 */
export type SessionChoice<S> =
  | { readonly kind: "new" }
  | { readonly kind: "begin"; readonly session: S }
  | { readonly kind: "end"; readonly session: S }
  | { readonly kind: "continue"; readonly session: S; readonly point: SessionPoint };

/** How the host describes its session: where it stands (null: not begun) and its pinning. */
export interface SessionFacts<S> {
  pointOf(session: S): SessionPoint | null;
  isCurrent(session: S): boolean;
}

export function chooseSession<S>(session: S | null, facts: SessionFacts<S>): SessionChoice<S> {
  if (session === null) return { kind: "new" };
  const point = facts.pointOf(session);
  if (point === null) return { kind: "begin", session };
  if (!facts.isCurrent(session)) return { kind: "end", session };
  return { kind: "continue", session, point };
}

/**
 * Whether a session may carry on under what the host runs now (its agent release, its standing
 * prompt): the CLI keeps a session's first system prompt for good. A session of unknown pin
 * (stored before pins were) never may.
 */
export function isPinnedTo(session: Pick<SessionRow, "pin">, pin: string | null): boolean {
  return session.pin !== null && session.pin === pin;
}

/** What `chooseSession` asks of the engine's sessions, for a host that runs `pin` now. */
export function pinnedTo(pin: string | null): SessionFacts<SessionRow> {
  return { pointOf: pointOfSession, isCurrent: (session) => isPinnedTo(session, pin) };
}
