import { TURN_MARKER_VARIABLE } from "@talkide/claude-cli";
import { processesWithMarker } from "@talkide/claude-cli/testing";

/** Live (not zombie) processes whose environment carries `TALKIDE_TURN_ID=<turnId>`. */
export function processesOfTurn(turnId: string): Promise<number[]> {
  return processesWithMarker(TURN_MARKER_VARIABLE, turnId);
}
