import { killLeftoverProcesses, TURN_MARKER_VARIABLES } from "@talkide/claude-cli";

/**
 * Kills the processes left behind by turns of a daemon that was killed (kill -9, a crash):
 * every process that carries one of the turn ids in its environment, under the marker both
 * apps set (`TALKIDE_TURN_ID`) or, until 0.4.0, the one this daemon set up to 0.2.x
 * (`TICLAWK_TURN_ID`: a daemon upgraded after a crash still finds the old release's
 * processes). The mechanism is `killLeftoverProcesses` of `@talkide/claude-cli`, shared with
 * the backend.
 */
export function killOrphanedTurnProcesses(
  turnIds: readonly string[],
): Promise<{ readonly supported: boolean; readonly killed: readonly number[] }> {
  return killLeftoverProcesses(TURN_MARKER_VARIABLES, turnIds);
}
