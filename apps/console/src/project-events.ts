import type { EventNameOn } from "@talkide/be-api";
import type { Turn } from "./api.ts";

/** Whether the tab hears the project's event stream now. */
export type StreamState = "connecting" | "live" | "reconnecting";

export interface ProjectEventHandlers {
  /** After every (re)connection's replay: the moment to load the turn list and merge it. */
  ready(): void;
  turnChanged(turn: Turn): void;
  turnText(turnId: string, text: string): void;
  membersChanged(): void;
  state(state: StreamState): void;
  /**
   * The browser gave the stream up (the service refused it: access lost, or an error page of
   * a proxy); the caller checks access before `connectProjectEvents` tries again.
   */
  refused(): void;
}

function parse(data: unknown): Record<string, unknown> | null {
  if (typeof data !== "string") return null;
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    // Not one of the service's frames (a proxy's line): nothing to show.
    return null;
  }
}

// After the browser gave a stream up, the next attempt waits this long (it doubles up to the
// cap), so a service that stays down is not asked in a tight loop.
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 15_000;

/**
 * Listens to `GET /v1/projects/:id/events` (the session cookie goes with it) until the
 * returned function is called. EventSource reconnects by itself after a dropped connection
 * and sends Last-Event-ID, so the service resumes after the last frame this tab got; frames
 * with an id this tab already saw are skipped all the same. When the browser gives up (an
 * HTTP error instead of the stream), a new EventSource is opened after a growing pause.
 */
export function connectProjectEvents(
  projectId: number,
  handlers: ProjectEventHandlers,
): () => void {
  let source: EventSource | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let retryMs = FIRST_RETRY_MS;
  let lastId = -1;
  let closed = false;

  // Frames of a replay the tab saw before (a resumed connection) are skipped by their id.
  const fresh = (event: MessageEvent<unknown>): boolean => {
    const id = Number(event.lastEventId);
    if (!Number.isFinite(id) || event.lastEventId === "") return true;
    if (id <= lastId) return false;
    lastId = id;
    return true;
  };

  function open(): void {
    if (closed) return;
    handlers.state(source === null ? "connecting" : "reconnecting");
    const stream = new EventSource(`/v1/projects/${projectId}/events`, { withCredentials: true });
    source = stream;
    // The frames by their names in the one vocabulary (`EVENT_NAMES` of @talkide/be-api).
    const on = (
      name: EventNameOn<"project">,
      listener: (event: MessageEvent<unknown>) => void,
    ): void => {
      stream.addEventListener(name, listener);
    };
    on("ready", () => {
      retryMs = FIRST_RETRY_MS;
      handlers.state("live");
      handlers.ready();
    });
    on("turn.changed", (event) => {
      if (!fresh(event)) return;
      const data = parse(event.data);
      if (data !== null && typeof data.turn === "object" && data.turn !== null) {
        handlers.turnChanged(data.turn as Turn);
      }
    });
    on("turn.text", (event) => {
      if (!fresh(event)) return;
      const data = parse(event.data);
      if (data !== null && typeof data.turnId === "string" && typeof data.text === "string") {
        handlers.turnText(data.turnId, data.text);
      }
    });
    on("members.changed", (event) => {
      if (fresh(event)) handlers.membersChanged();
    });
    stream.addEventListener("error", () => {
      if (closed || source !== stream) return;
      handlers.state("reconnecting");
      if (stream.readyState !== EventSource.CLOSED) return;
      // The browser will not try again by itself.
      handlers.refused();
      retryTimer = setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    });
  }

  open();
  return () => {
    closed = true;
    if (retryTimer !== null) clearTimeout(retryTimer);
    source?.close();
  };
}
