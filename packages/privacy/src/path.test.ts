import { describe, expect, it } from "vitest";
import { formatPath } from "./path.ts";

describe("formatPath", () => {
  it("joins names with dots and puts indexes in brackets", () => {
    expect(formatPath(["team", 0, "email"])).toBe("team[0].email");
    expect(formatPath(["project", "owner"])).toBe("project.owner");
    expect(formatPath(["activeMemberId"])).toBe("activeMemberId");
    expect(formatPath(["team", 12])).toBe("team[12]");
  });

  it("names the whole document with the empty path", () => {
    expect(formatPath([])).toBe("");
  });

  it("quotes a name that is not a plain identifier, so the path stays unambiguous", () => {
    expect(formatPath(["team", 0, "e-mail"])).toBe('team[0]["e-mail"]');
    expect(formatPath(["team", 0, "a.b"])).toBe('team[0]["a.b"]');
    expect(formatPath(["team", 0, ""])).toBe('team[0][""]');
    expect(formatPath(["team", 0, "[0]"])).toBe('team[0]["[0]"]');
    expect(formatPath(["x\ny"])).toBe('["x\\ny"]');
    expect(formatPath(["project", "$ref"])).toBe('project["$ref"]');
    expect(formatPath(["project", "název"])).toBe('project["název"]');
    expect(formatPath(["_a1"])).toBe("_a1");
  });
});
