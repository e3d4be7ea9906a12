import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { projectIdOfRoute, routeOfProject } from "./project-route.ts";

describe("a project's address", () => {
  it("reads /projects/<id> and nothing else", () => {
    expect(projectIdOfRoute("/projects/7")).toBe(7);
    expect(projectIdOfRoute("/projects/7/")).toBe(7);
    expect(projectIdOfRoute("/")).toBeNull();
    expect(projectIdOfRoute("/projects/0")).toBeNull();
    expect(projectIdOfRoute("/projects/7x")).toBeNull();
    expect(projectIdOfRoute("/v1/projects/7")).toBeNull();
    expect(routeOfProject(null)).toBe("/");
  });

  test.prop([fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })])(
    "gives back the project it was made for",
    (id) => {
      expect(projectIdOfRoute(routeOfProject(id))).toBe(id);
    },
  );
});
