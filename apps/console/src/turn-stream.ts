import type { TurnEvent } from "@talkide/be-api";
import { createParser } from "eventsource-parser";
import { toApiError, type Api } from "./api.ts";

/** An event of the turn's stream: the backend's event contract (@talkide/be-api). */
export type TurnStreamEvent = TurnEvent;

/**
 * Sends a message and calls `onEvent` for each event of the turn's stream as it arrives
 * (`Accept: text/event-stream` on the POST itself, so no event can be missed). EventSource
 * cannot POST, hence fetch and a stream parser. The session cookie goes with it.
 */
export async function sendMessageStreaming(
  api: Api,
  projectId: number,
  text: string,
  onEvent: (event: TurnStreamEvent) => void,
): Promise<void> {
  const path = `/v1/projects/${projectId}/messages`;
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ text }),
  });
  if (!response.ok || response.body === null) {
    const error = await toApiError(response);
    api.noticeAccessLoss(error, path);
    throw error;
  }
  const parser = createParser({
    onEvent: (message) => {
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        // Not one of the service's events (a proxy's line): nothing to show.
        return;
      }
      if (typeof data !== "object" || data === null) return;
      // The stream is the backend's: its events are the contract's (names and payloads).
      onEvent({ seq: Number(message.id), type: message.event, data } as TurnStreamEvent);
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
}
