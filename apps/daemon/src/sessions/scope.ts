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
  readonly standingPromptVersion: string;
  readonly cumulativeCostUsd: number | null;
}

export type SessionScope =
  | {
      readonly kind: "resume";
      readonly sessionId: string;
      readonly runtimeSessionId: string;
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

export function resolveSessionScope(
  live: LiveSession | null,
  standingPromptVersion: string,
): SessionScope {
  if (live === null) return { kind: "fresh", reuseSessionId: null, invalidate: null };
  if (live.standingPromptVersion !== standingPromptVersion) {
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
    previousCumulativeCostUsd: live.cumulativeCostUsd,
  };
}

/**
 * What a finished turn changes on its session. A successful turn records the runtime session
 * it ran in (a fresh session learns its id here). A failed turn changes nothing: the session
 * stays usable, and the next delivery resumes where the last successful turn left off.
 */
export function sessionPatchAfterTurn(
  scope: SessionScope,
  outcome:
    | {
        readonly ok: true;
        readonly runtimeSessionId: string;
        readonly cumulativeCostUsd: number | null;
      }
    | { readonly ok: false },
): { readonly runtimeSessionId: string; readonly cumulativeCostUsd: number | null } | null {
  if (!outcome.ok) return null;
  const previous = scope.kind === "resume" ? scope.previousCumulativeCostUsd : null;
  return {
    runtimeSessionId: outcome.runtimeSessionId,
    cumulativeCostUsd: outcome.cumulativeCostUsd ?? previous,
  };
}
