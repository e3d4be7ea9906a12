import { createParser } from "eventsource-parser";
import { toApiError, type Api } from "./api.ts";

export interface TurnStreamEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/**
 * Sends a message and calls `onEvent` for each event of the turn's stream as it arrives
 * (`Accept: text/event-stream` on the POST itself, so no event can be missed). EventSource
 * cannot POST or send the token as a header, hence fetch and a stream parser.
 */
export async function sendMessageStreaming(
  api: Api,
  projectId: number,
  text: string,
  onEvent: (event: TurnStreamEvent) => void,
): Promise<void> {
  const response = await fetch(`/v1/projects/${projectId}/messages`, {
    method: "POST",
    headers: api.headers({ "content-type": "application/json", accept: "text/event-stream" }),
    body: JSON.stringify({ text }),
  });
  if (!response.ok || response.body === null) throw await toApiError(response);
  const parser = createParser({
    onEvent: (message) => {
      let data: Record<string, unknown> = {};
      try {
        data = JSON.parse(message.data) as Record<string, unknown>;
      } catch {
        // Not one of the service's events: shown by type only.
      }
      onEvent({ type: message.event ?? "message", data });
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
}
