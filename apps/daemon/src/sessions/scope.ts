import type { SessionPoint } from "@talkide/claude-cli";
import { chooseSession } from "@talkide/turn-engine";
import type { SessionInvalidationReason } from "../db/schema.ts";

/**
 * Session rules (contract section 5), as pure functions of what the database holds.
 *
 * One runtime session per (agent, conversation). The runtime keeps the system prompt of a
 * session's first turn for the whole session, so a session is bound to the standing prompt
 * version it started with: a different version means a fresh session, never a resumed one
 * with a silently stale prompt. Which session a turn continues is the turn engine's rule
 * (`chooseSession`): a session begins with its first successful turn; before that (its row
 * exists from the conversation's first turn: its id is the agent's `TICLAWK_SESSION_ID`) it
 * is started afresh in place, pinned to the standing prompt of now, and never invalidated for
 * an older one.
 */

/** The live (not invalidated) session of an (agent, conversation), as stored. */
export interface LiveSession {
  readonly id: string;
  readonly runtimeSessionId: string | null;
  /** The last message of the last successful turn (null: resume the transcript's end). */
  readonly resumeAtMessageId: string | null;
  readonly standingPromptVersion: string;
  readonly cumulativeCostUsd: number | null;
}

export type SessionScope =
  | {
      readonly kind: "resume";
      readonly sessionId: string;
      readonly runtimeSessionId: string;
      /**
       * Where the conversation continues: a failed turn after this message (its prompt, the
       * runtime's error text) is not part of the resumed session.
       */
      readonly resumeAtMessageId: string | null;
      /** The session's total so far: the CLI's running total is compared with it (no gateway). */
      readonly previousCumulativeCostUsd: number | null;
    }
  | {
      readonly kind: "fresh";
      /**
       * A live session that has not begun (no turn of it succeeded): it is reused rather than
       * replaced, whatever standing prompt it was pinned to, since nothing of it exists in the
       * runtime.
       */
      readonly reuseSessionId: string | null;
      /** The live session this one replaces, and why. */
      readonly invalidate: {
        readonly sessionId: string;
        readonly reason: SessionInvalidationReason;
      } | null;
    };

/**
 * Whether a live session may carry on under the daemon's standing prompt: one started with
 * another version is replaced, never resumed. The one rule both the turn pipeline's `choose`
 * stage (the daemon's host) and `resolveSessionScope` apply.
 */
export function isCurrentSession(live: LiveSession, standingPromptVersion: string): boolean {
  return live.standingPromptVersion === standingPromptVersion;
}

/** Where a live session stands for the turn engine; null while it has not begun. */
export function livePointOf(live: LiveSession): SessionPoint | null {
  return live.runtimeSessionId === null
    ? null
    : { id: live.runtimeSessionId, at: live.resumeAtMessageId };
}

/** The scope of a turn the engine runs in `live` at `point` (null: the runtime starts afresh). */
export function sessionScopeOf(live: LiveSession | null, point: SessionPoint | null): SessionScope {
  if (live === null || point === null)
    return { kind: "fresh", reuseSessionId: live?.id ?? null, invalidate: null };
  return {
    kind: "resume",
    sessionId: live.id,
    runtimeSessionId: point.id,
    resumeAtMessageId: point.at,
    previousCumulativeCostUsd: live.cumulativeCostUsd,
  };
}

/** The scope of the next turn of a conversation whose live session is `live` (the engine's rule). */
export function resolveSessionScope(
  live: LiveSession | null,
  standingPromptVersion: string,
): SessionScope {
  const choice = chooseSession(live, {
    pointOf: livePointOf,
    isCurrent: (session) => isCurrentSession(session, standingPromptVersion),
  });
  switch (choice.kind) {
    case "new":
      return sessionScopeOf(null, null);
    case "begin":
      return sessionScopeOf(choice.session, null);
    case "end":
      return {
        kind: "fresh",
        reuseSessionId: null,
        invalidate: { sessionId: choice.session.id, reason: "standing_prompt_changed" },
      };
    case "continue":
      return sessionScopeOf(choice.session, choice.point);
  }
}

/**
 * What a finished turn changes on its session. A successful turn records the runtime session
 * it ran in (a fresh session learns its id here) and its last message, the next resume point.
 * A failed turn changes nothing: the session stays usable, and the next delivery resumes at
 * the last successful turn's message, so nothing of the failure reaches the model. (What a
 * turn cost, failed or not, is added to the session's total where the turn is stored.)
 */
export function sessionPatchAfterTurn(
  scope: SessionScope,
  outcome:
    | {
        readonly ok: true;
        readonly runtimeSessionId: string;
        readonly lastMessageId: string | null;
      }
    | { readonly ok: false },
): {
  readonly runtimeSessionId: string;
  readonly resumeAtMessageId: string | null;
} | null {
  if (!outcome.ok) return null;
  return {
    runtimeSessionId: outcome.runtimeSessionId,
    resumeAtMessageId: outcome.lastMessageId,
  };
}
