import { guardedRoutes } from "@talkide/strict-json";
import { walkHostileUrls, type UrlResponse } from "@talkide/strict-json/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, defaultProject, startHarness, type Harness } from "../test-support/harness.ts";

/** Why an error response is not the documented problem+json (API.md, "Errors"); null if it is. */
function problemShapeFault(response: UrlResponse): string | null {
  if (!response.contentType.startsWith("application/problem+json"))
    return `content type ${response.contentType}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.text) as Record<string, unknown>;
  } catch {
    return "a body that is not JSON";
  }
  const code = body.code;
  const fits =
    typeof code === "string" &&
    /^[a-z][a-z0-9_]*$/.test(code) &&
    body.type === `urn:talkide:problem:${code}` &&
    typeof body.title === "string" &&
    body.status === response.status &&
    typeof body.detail === "string" &&
    Object.keys(body).every((key) =>
      ["type", "title", "status", "code", "detail", "path", "errors"].includes(key),
    );
  return fits ? null : `a body outside problem+json: ${response.text.slice(0, 200)}`;
}

/**
 * Every route of the API, taken from its router (so a new one is walked without anyone
 * listing it), over real HTTP, with hostile path and query values, with and without a token:
 * no 5xx, every error problem+json with a stable code, nothing repeated back.
 */
describe("hostile URLs on every route", () => {
  let harness: Harness;
  let token: string;
  let projectId: number;
  /** Someone else's project: the walk of DELETE /v1/projects/:id must not delete its own. */
  let strangersProjectId: number;

  beforeAll(async () => {
    harness = await startHarness();
    const anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
    token = anna.token;
    const created = await api<{ project: { id: number } }>(
      harness,
      token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    projectId = created.body.project.id;
    const bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
    const bobs = await api<{ project: { id: number } }>(
      harness,
      bob.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    strangersProjectId = bobs.body.project.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  it(
    "gives each a stable 4xx in problem+json, repeating nothing",
    { timeout: 600_000 },
    async () => {
      const all = guardedRoutes(harness.service.app);
      expect(all.map((r) => `${r.method} ${r.url}`)).toContain("GET /v1/projects/:projectId/turns");
      const isDelete = (r: { method: string; url: string }) =>
        r.method === "DELETE" && r.url === "/v1/projects/:projectId";
      const routes = all.filter((r) => !isDelete(r));
      // Deleting is walked on a project the token cannot see: an accepted hostile query value
      // must not take the project the other routes are walked on.
      const deletes = all.filter(isDelete);
      expect(deletes).toHaveLength(1);
      expect(
        await walkHostileUrls({
          baseUrl: harness.url,
          routes: deletes,
          params: { projectId: String(strangersProjectId) },
          queryNames: ["limit", "before"],
          tokens: [null, token],
          errorShapeFault: problemShapeFault,
        }),
      ).toEqual([]);
      const faults = await walkHostileUrls({
        baseUrl: harness.url,
        routes,
        params: {
          projectId: String(projectId),
          memberId: "00000000-0000-4000-8000-000000000000",
          turnId: "00000000-0000-4000-8000-000000000000",
          "*": "CLAUDE.md",
        },
        queryNames: ["limit", "before"],
        tokens: [null, token],
        errorShapeFault: problemShapeFault,
      });
      expect(faults).toEqual([]);
    },
  );

  it.each([
    ["/turns?before=2147483648", 400, "invalid_query"],
    ["/turns?before=9223372036854775808", 400, "invalid_query"],
    ["/turns?limit=%00", 400, "invalid_text"],
    ["/turns/%ff", 400, "invalid_encoding"],
    [`/turns/${"a".repeat(500)}`, 414, "parameter_too_long"],
  ])(
    "answers GET /v1/projects/:id%.40s with a stable %i (it was a 500 or Fastify's shape)",
    async (tail, status, code) => {
      const response = await api(harness, token, "GET", `/v1/projects/${projectId}${tail}`);
      expect({
        status: response.status,
        code: (response.body as { code?: string }).code,
        fault: problemShapeFault({
          status: response.status,
          contentType: response.headers.get("content-type") ?? "",
          text: response.text,
        }),
      }).toEqual({ status, code, fault: null });
      expect(response.text).not.toContain("aaaaaaaaaa");
      expect(response.text).not.toContain("2147483648");
    },
  );
});
