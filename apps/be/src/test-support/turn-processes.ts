import { processesWithMarker } from "@talkide/claude-cli/testing";
import { TURN_ID_VARIABLE } from "../agent/claude-args.ts";

/** Live (not zombie) processes whose environment carries `TALKIDE_TURN_ID=<turnId>`. */
export function processesOfTurn(turnId: string): Promise<number[]> {
  return processesWithMarker(TURN_ID_VARIABLE, turnId);
}

export async function until<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 1500; i += 1) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
