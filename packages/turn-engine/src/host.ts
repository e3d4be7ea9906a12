import type { RuntimeTranscript, SessionPoints } from "@talkide/claude-cli";

/**
 * What the engine's stages ask of the app that hosts them (the backend, the daemon): where a
 * session's point and transcript are stored and where the engine's own reports go. Everything
 * else a turn needs (the context the host renders, the process record, the outcome's rows,
 * the events its clients see) stays in the host's adapter, which calls the stages in order.
 */
export interface TurnHost {
  /**
   * Where each of the kept sessions stands now, by the warm pool's keys: a kept process whose
   * session moved on (its next turn ran elsewhere, or the session ended) is ended.
   */
  sessionPoints(keys: readonly string[]): Promise<SessionPoints>;
  /** The session's stored transcript, whole (its parts joined); null when none is stored. */
  loadTranscript(sessionKey: string): Promise<RuntimeTranscript | null>;
  /** The host's log; the engine reports what an operator may want to know. */
  readonly log: EngineLog;
}

export interface EngineLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
