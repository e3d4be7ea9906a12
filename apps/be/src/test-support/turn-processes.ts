import { processesWithMarker } from "@talkide/claude-cli/testing";
import { TURN_ID_VARIABLE } from "../agent/claude-args.ts";

/** Live (not zombie) processes whose environment carries `TALKIDE_TURN_ID=<turnId>`. */
export function processesOfTurn(turnId: string): Promise<number[]> {
  return processesWithMarker(TURN_ID_VARIABLE, turnId);
}
