/**
 * Where an event is sent:
 *
 * - `turn`: a backend turn's events (stored in `turn_events`, streamed by
 *   `GET /v1/projects/:id/turns/:turnId/events`; payloads in `TURN_EVENTS`);
 * - `project`: the frames of the backend's project stream (`GET /v1/projects/:id/events`),
 *   which the console follows;
 * - `daemon`: the daemon's events (`GET /v1/events`, and its log lines).
 */
export type EventStream = "turn" | "project" | "daemon";

/**
 * The one event vocabulary of both apps (issue 50): every name an event is sent under, with
 * the streams that send it. One fact has one name in both apps: a turn that ended well is
 * `turn.succeeded` (beside `turn.failed`), a session ended so that the next turn starts a new
 * one is `session.reset`. The payloads are each app's own (the backend's in `TURN_EVENTS`, the
 * daemon's `DaemonEvent`); the names are these, checked by the compiler where each app declares
 * its events and by their tests where they are sent.
 */
export const EVENT_NAMES = {
  "turn.queued": ["turn"],
  "turn.started": ["turn", "daemon"],
  "turn.process": ["daemon"],
  "context.written": ["turn"],
  "workspace.instructions": ["turn", "daemon"],
  "port.busy": ["turn"],
  "session.reset": ["turn", "daemon"],
  "agent.init": ["turn"],
  "agent.api_retry": ["turn"],
  "agent.text": ["turn"],
  "agent.tool_use": ["turn"],
  "turn.succeeded": ["turn", "daemon"],
  "turn.failed": ["turn", "daemon"],
  "turn.stopped": ["turn"],
  "delivery.accepted": ["daemon"],
  "delivery.completed": ["daemon"],
  "delivery.failed": ["daemon"],
  "delivery.requeued": ["daemon"],
  "agent.registered": ["daemon"],
  "agent.reset": ["daemon"],
  "turn.changed": ["project"],
  "turn.text": ["project"],
  "members.changed": ["project"],
  ready: ["project"],
} as const satisfies Readonly<Record<string, readonly EventStream[]>>;

export type EventName = keyof typeof EVENT_NAMES;

/** The names sent on `stream`. */
export type EventNameOn<S extends EventStream> = {
  [N in EventName]: S extends (typeof EVENT_NAMES)[N][number] ? N : never;
}[EventName];

/** The names sent on `stream`, in the vocabulary's order. */
export function eventNamesOn<S extends EventStream>(stream: S): EventNameOn<S>[] {
  return (Object.keys(EVENT_NAMES) as EventName[]).filter((name) =>
    (EVENT_NAMES[name] as readonly EventStream[]).includes(stream),
  ) as EventNameOn<S>[];
}

/**
 * The names the daemon sent before the vocabulary was one (up to 0.2.x), each with the name
 * that replaced it. The backend never sent them. For one minor version the daemon's
 * `GET /v1/events` still sends each such event twice, under the new name and then under the
 * old one (see `RETIRED_EVENT_NAMES_REMOVED_IN`), so that a client that listens for the old
 * name keeps working while it moves to the new one.
 */
export const RETIRED_EVENT_NAMES = {
  "turn.finished": "turn.succeeded",
  "session.invalidated": "session.reset",
} as const satisfies Readonly<Record<string, EventNameOn<"daemon">>>;

export type RetiredEventName = keyof typeof RETIRED_EVENT_NAMES;

/** The daemon's release that stops sending `RETIRED_EVENT_NAMES`. */
export const RETIRED_EVENT_NAMES_REMOVED_IN = "0.4.0";

/** The retired name `name` replaced, if any: what the daemon also sends it as, for now. */
export function retiredNameOf(name: string): RetiredEventName | null {
  for (const [retired, current] of Object.entries(RETIRED_EVENT_NAMES)) {
    if (current === name) return retired as RetiredEventName;
  }
  return null;
}
