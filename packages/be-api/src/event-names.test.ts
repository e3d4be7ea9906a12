import { expect, test } from "vitest";
import {
  EVENT_NAMES,
  eventNamesOn,
  RETIRED_EVENT_NAMES,
  retiredNameOf,
  type EventName,
} from "./event-names.ts";
import { TERMINAL_EVENT_NAMES, TURN_EVENTS } from "./events.ts";

test("a backend turn's events are exactly the vocabulary's turn names, in its order", () => {
  expect(Object.keys(TURN_EVENTS)).toEqual(eventNamesOn("turn"));
  expect(TERMINAL_EVENT_NAMES.every((name) => eventNamesOn("turn").includes(name))).toBe(true);
});

test("the facts both apps tell have one name: a turn that ended well, a session reset", () => {
  const both = eventNamesOn("turn").filter((name) =>
    (eventNamesOn("daemon") as readonly EventName[]).includes(name),
  );
  expect(both).toEqual([
    "turn.started",
    "workspace.instructions",
    "session.reset",
    "turn.succeeded",
    "turn.failed",
  ]);
});

test("every retired name stands for a current daemon name and is no name of its own", () => {
  expect(RETIRED_EVENT_NAMES).toEqual({
    "turn.finished": "turn.succeeded",
    "session.invalidated": "session.reset",
  });
  for (const [retired, current] of Object.entries(RETIRED_EVENT_NAMES)) {
    expect(Object.hasOwn(EVENT_NAMES, retired)).toBe(false);
    expect(eventNamesOn("daemon")).toContain(current);
    expect(retiredNameOf(current)).toBe(retired);
  }
  expect(retiredNameOf("turn.started")).toBeNull();
  expect(retiredNameOf("turn.finished")).toBeNull();
});
