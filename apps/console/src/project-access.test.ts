import { describe, expect, it } from "vitest";
import { accessLossOf, projectIdOfPath } from "./project-access.ts";

const bakery = { id: 1, name: "Pekárna" };
const shop = { id: 2, name: "Shop" };

describe("accessLossOf", () => {
  it("says nothing while the selected project is still visible", () => {
    expect(accessLossOf(bakery, [bakery, shop])).toBeNull();
    expect(accessLossOf(null, [])).toBeNull();
  });

  it("names the project that went and shows the first one left", () => {
    expect(accessLossOf(bakery, [shop])).toEqual({
      notice: "You no longer have access to Pekárna.",
      nextId: 2,
    });
  });

  it("shows no project when none is left", () => {
    expect(accessLossOf(bakery, [])?.nextId).toBeNull();
  });
});

describe("projectIdOfPath", () => {
  it("reads the project of a project's path, and nothing of other paths", () => {
    expect(projectIdOfPath("/v1/projects/7/turns?limit=200")).toBe(7);
    expect(projectIdOfPath("/v1/projects/12")).toBe(12);
    expect(projectIdOfPath("/v1/projects")).toBeNull();
    expect(projectIdOfPath("/v1/me/sessions")).toBeNull();
  });
});
