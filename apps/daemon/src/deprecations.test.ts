import { readFileSync } from "node:fs";
import { RETIRED_EVENT_NAMES, RETIRED_EVENT_NAMES_REMOVED_IN } from "@talkide/be-api";
import { TURN_MARKER_VARIABLE, TURN_MARKER_VARIABLES } from "@talkide/claude-cli";
import { expect, it } from "vitest";

/** This package's version as [major, minor]. */
function minorOf(version: string): [number, number] {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return [major, minor];
}

it("drops the names of 0.2.x (events and turn marker) in the release that removes them", () => {
  // The grace period is one minor version (issue 50): this fails once the daemon's version
  // reaches RETIRED_EVENT_NAMES_REMOVED_IN while the old names are still sent or recognised.
  const { version } = JSON.parse(
    readFileSync(new URL("../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  const [major, minor] = minorOf(version);
  const [removalMajor, removalMinor] = minorOf(RETIRED_EVENT_NAMES_REMOVED_IN);
  const due = major > removalMajor || (major === removalMajor && minor >= removalMinor);
  expect(due ? Object.keys(RETIRED_EVENT_NAMES) : []).toEqual([]);
  expect(due ? TURN_MARKER_VARIABLES : [TURN_MARKER_VARIABLE]).toEqual([TURN_MARKER_VARIABLE]);
});
