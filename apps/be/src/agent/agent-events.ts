import { apiRetryOf, isSyntheticAssistantEvent, type ClaudeStreamEvent } from "@talkide/claude-cli";
import { apiRetryEventData } from "./retry-event.ts";
import type { TurnEmitter } from "./turn-events.ts";

/** Claude Code's stream, reduced to what a client of the API needs to follow a turn. */
export function forwardAgentEvent(event: ClaudeStreamEvent, live: TurnEmitter): void {
  if (event.type === "system" && event.subtype === "init") {
    live.emit("agent.init", {
      sessionId: typeof event.session_id === "string" ? event.session_id : null,
      model: typeof event.model === "string" ? event.model : null,
    });
    return;
  }
  const retry = apiRetryOf(event);
  if (retry !== null) {
    live.emit("agent.api_retry", apiRetryEventData(retry));
    return;
  }
  // Claude Code's stand-in for a reply (an API error, "Not logged in") is the runtime
  // talking, never Mara: the failure reaches people as the turn's error instead.
  if (event.type !== "assistant" || isSyntheticAssistantEvent(event)) return;
  const message = event.message as { content?: unknown } | undefined;
  if (!Array.isArray(message?.content)) return;
  for (const block of message.content as Array<Record<string, unknown>>) {
    if (block.type === "text" && typeof block.text === "string") {
      live.emit("agent.text", { text: block.text });
    } else if (block.type === "tool_use" && typeof block.name === "string") {
      live.emit("agent.tool_use", { name: block.name });
    }
  }
}
