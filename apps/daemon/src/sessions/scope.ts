import type { SessionInvalidationReason } from "../db/schema.ts";

/**
 * Session rules (contract section 5), as pure functions of what the database holds.
 *
 * One runtime session per (agent, conversation). The runtime keeps the system prompt of a
 * session's first turn for the whole session, so a session is bound to the standing prompt
 * version it started with: a different version means a fresh session, never a resumed one
 * with a silently stale prompt.
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
      readonly previousCumulativeCostUsd: number | null;
    }
  | {
      readonly kind: "fresh";
      /**
       * A live session whose first turn never produced a runtime session (it failed): it is
       * reused rather than replaced, since nothing of it exists in the runtime.
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

export function resolveSessionScope(
  live: LiveSession | null,
  standingPromptVersion: string,
): SessionScope {
  if (live === null) return { kind: "fresh", reuseSessionId: null, invalidate: null };
  if (!isCurrentSession(live, standingPromptVersion)) {
    return {
      kind: "fresh",
      reuseSessionId: null,
      invalidate: { sessionId: live.id, reason: "standing_prompt_changed" },
    };
  }
  if (live.runtimeSessionId === null)
    return { kind: "fresh", reuseSessionId: live.id, invalidate: null };
  return {
    kind: "resume",
    sessionId: live.id,
    runtimeSessionId: live.runtimeSessionId,
    resumeAtMessageId: live.resumeAtMessageId,
    previousCumulativeCostUsd: live.cumulativeCostUsd,
  };
}

/**
 * What a finished turn changes on its session. A successful turn records the runtime session
 * it ran in (a fresh session learns its id here) and its last message, the next resume point.
 * A failed turn changes nothing: the session stays usable, and the next delivery resumes at
 * the last successful turn's message, so nothing of the failure reaches the model.
 */
export function sessionPatchAfterTurn(
  scope: SessionScope,
  outcome:
    | {
        readonly ok: true;
        readonly runtimeSessionId: string;
        readonly lastMessageId: string | null;
        readonly cumulativeCostUsd: number | null;
      }
    | { readonly ok: false },
): {
  readonly runtimeSessionId: string;
  readonly resumeAtMessageId: string | null;
  readonly cumulativeCostUsd: number | null;
} | null {
  if (!outcome.ok) return null;
  const previous = scope.kind === "resume" ? scope.previousCumulativeCostUsd : null;
  return {
    runtimeSessionId: outcome.runtimeSessionId,
    resumeAtMessageId: outcome.lastMessageId,
    cumulativeCostUsd: outcome.cumulativeCostUsd ?? previous,
  };
}
