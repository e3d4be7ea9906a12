import { describe, expect, it } from "vitest";
import { ROSTER_ALLOWLIST } from "./allowlist.ts";

describe("ROSTER_ALLOWLIST", () => {
  it("admits exactly the consented and structural fields", () => {
    expect(Object.keys(ROSTER_ALLOWLIST).sort()).toEqual(["createdAt", "id", "salutation", "teamBriefing"]);
  });
});
