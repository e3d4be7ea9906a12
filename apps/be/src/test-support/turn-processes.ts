import { processesWithMarker } from "@talkide/claude-cli/testing";
import { waitFor } from "@talkide/service-kit/testing";
import { TURN_ID_VARIABLE } from "../agent/claude-args.ts";

/** Live (not zombie) processes whose environment carries `TALKIDE_TURN_ID=<turnId>`. */
export function processesOfTurn(turnId: string): Promise<number[]> {
  return processesWithMarker(TURN_ID_VARIABLE, turnId);
}

/** Polls `probe` until it returns a value (service-kit's waitFor: pauses that grow). */
export function until<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  return waitFor(probe, what, 60_000);
}
