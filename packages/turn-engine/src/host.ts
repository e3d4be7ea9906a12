import type { SessionPoints } from "@talkide/claude-cli";

/**
 * What the warm pool's pruning asks of the app that hosts it (the backend, the daemon): where
 * the kept sessions stand (the engine's `sessionPoints` on the host's database) and where the
 * engine's own reports go.
 */
export interface TurnHost {
  /**
   * Where each of the kept sessions stands now, by the warm pool's keys: a kept process whose
   * session moved on (its next turn ran elsewhere, or the session ended) is ended.
   */
  sessionPoints(keys: readonly string[]): Promise<SessionPoints>;
  /** The host's log; the engine reports what an operator may want to know. */
  readonly log: EngineLog;
}

export interface EngineLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
