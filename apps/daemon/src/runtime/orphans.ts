import { killLeftoverProcesses } from "@talkide/claude-cli";

/** Set in every turn's child environment; inherited by everything the turn starts. */
export const TURN_ID_VARIABLE = "TICLAWK_TURN_ID";

/**
 * Kills the processes left behind by turns of a daemon that was killed (kill -9, a crash):
 * every process that carries one of the turn ids in its environment. The mechanism is
 * `killLeftoverProcesses` of `@talkide/claude-cli`, shared with the backend.
 */
export function killOrphanedTurnProcesses(
  turnIds: readonly string[],
): Promise<{ readonly supported: boolean; readonly killed: readonly number[] }> {
  return killLeftoverProcesses(TURN_ID_VARIABLE, turnIds);
}
