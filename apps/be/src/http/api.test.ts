import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseRenderState, renderContextFiles } from "@talkide/renderer";
import { renderProjectYml } from "@talkide/ports";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addMember,
  api,
  defaultProject,
  freshPostgresDatabase,
  occupyProjectIdsBelow,
  postgresAvailable,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";

interface ProjectBody {
  project: { id: number; workspaceDir: string; ports: { be: number; fe: number } } & Record<
    string,
    unknown
  >;
  members: Array<{ id: string; salutation: string; you: boolean } & Record<string, unknown>>;
}

interface ProblemCase {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly status: number;
  readonly code: string;
  /** The problem's `field`; null: the problem names none; left out: not checked. */
  readonly field?: string | null;
}

const backends = [
  { name: "embedded database (PGlite)", postgres: false },
  { name: "PostgreSQL server", postgres: true },
] as const;

const pgAvailable = postgresAvailable();

describe.each(backends)("HTTP API on the $name", ({ postgres }) => {
  let harness: Harness;
  let anna: TestUser;
  let bob: TestUser;
  let eve: TestUser;
  let dropDatabase: (() => Promise<void>) | null = null;
  let stopServer: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    let databaseUrl: string | null = null;
    if (postgres) {
      const db = await freshPostgresDatabase();
      databaseUrl = db.url;
      dropDatabase = () => db.drop();
      stopServer = () => db.stopServer();
    }
    harness = await startHarness({ databaseUrl });
    anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna Nováková" });
    bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob Builder" });
    eve = await harness.createUser({ email: "eve@example.com", displayName: "Eve Outsider" });
  });

  afterAll(async () => {
    await harness.close();
    await dropDatabase?.();
    await stopServer?.();
  });

  const skip = postgres && !pgAvailable;

  /** A request as one of the test users. */
  const call = <T = Record<string, unknown>>(
    user: TestUser,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => api<T>(harness, user.token, method, path, body, headers);

  /** A new project of `user`'s: `defaultProject` unless another body is given. */
  const createProject = (user: TestUser = anna, body: unknown = defaultProject) =>
    call<ProjectBody>(user, "POST", "/v1/projects", body);

  /** Each request is refused with exactly its status and code, as a problem document. */
  async function expectProblems(user: TestUser, requests: readonly ProblemCase[]): Promise<void> {
    for (const { method, path, body, headers, status, code, field } of requests) {
      const response = await call(user, method, path, body, headers);
      const got = { path, body, status: response.status, code: response.body.code };
      expect(field === undefined ? got : { ...got, field: response.body.field ?? null }).toEqual(
        field === undefined ? { path, body, status, code } : { path, body, status, code, field },
      );
      expect(response.body).toMatchObject({ type: `urn:talkide:problem:${code}`, status });
      expect(typeof response.body.title).toBe("string");
      expect(typeof response.body.detail).toBe("string");
    }
  }

  it.skipIf(skip)("answers /health without a token and everything else only with one", async () => {
    const health = await api(harness, null, "GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok", database: postgres ? "postgres" : "embedded" });

    for (const [token, header] of [
      [null, undefined],
      ["tkbe_not-a-real-token", undefined],
      [null, { authorization: "Basic Zm9vOmJhcg==" }],
    ] as const) {
      const response = await api(harness, token, "GET", "/v1/projects", undefined, header ?? {});
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({
        code: "unauthorized",
        status: 401,
        type: "urn:talkide:problem:unauthorized",
      });
    }
    const me = await call(anna, "GET", "/v1/me");
    expect(me.body).toMatchObject({
      email: "anna@example.com",
      displayName: "Anna Nováková",
      phone: null,
    });
  });

  it.skipIf(skip)(
    "creates a project: ids from 1, creator is the owner, workspace and project.yml exist",
    async () => {
      const created = await createProject();
      expect(created.status).toBe(201);
      const { project, members } = created.body;
      expect(project.id).toBe(1);
      expect(created.headers.get("location")).toBe("/v1/projects/1");
      expect(project).toMatchObject({
        name: "Pekárna u Jelena",
        url: null,
        backendLanguage: "Kotlin",
        backendFramework: "Spring Boot",
        frontendLanguage: "TypeScript",
        frontendFramework: "Vue.js",
        ports: { be: 8091, fe: 5201 },
      });
      expect(members).toEqual([
        expect.objectContaining({
          salutation: "Anna",
          teamBriefing: "Preferuji Pinia.",
          role: "owner",
          you: true,
        }),
      ]);
      expect(readFileSync(join(project.workspaceDir, ".talkide", "project.yml"), "utf8")).toBe(
        renderProjectYml(1),
      );
      // CLAUDE.md is written before the first spawn, not at creation.
      expect(existsSync(join(project.workspaceDir, "CLAUDE.md"))).toBe(false);

      const second = await createProject(bob, {
        ...defaultProject,
        member: { salutation: "Bob" },
      });
      expect(second.body.project.id).toBe(2);
    },
  );

  it.skipIf(skip)("isolates projects: non-members get 404 on every project route", async () => {
    const created = await createProject();
    const id = created.body.project.id;
    const memberId = created.body.members[0]?.id ?? "";
    const list = await call<{ projects: Array<{ id: number }> }>(eve, "GET", "/v1/projects");
    expect(list.body.projects.map((p) => p.id)).not.toContain(id);
    const attempts: Array<[string, string, unknown?]> = [
      ["GET", `/v1/projects/${id}`],
      ["GET", `/v1/projects/${id}/members`],
      ["POST", `/v1/projects/${id}/members`, { email: "eve@example.com", salutation: "Eve" }],
      ["PATCH", `/v1/projects/${id}/members/${memberId}`, { salutation: "Hacked" }],
      ["PATCH", `/v1/projects/${id}/members/${memberId}`, { role: "member" }],
      ["DELETE", `/v1/projects/${id}/members/${memberId}`],
      ["DELETE", `/v1/projects/${id}/members/me`],
      ["POST", `/v1/projects/${id}/invites`, { salutation: "Eve" }],
      ["GET", `/v1/projects/${id}/invites`],
      ["POST", `/v1/projects/${id}/invites/00000000-0000-4000-8000-000000000000/link`],
      ["DELETE", `/v1/projects/${id}/invites/00000000-0000-4000-8000-000000000000`],
      ["GET", `/v1/projects/${id}/context`],
      ["GET", `/v1/projects/${id}/context/CLAUDE.md`],
      ["POST", `/v1/projects/${id}/messages`, { text: "hi" }],
      ["GET", `/v1/projects/${id}/turns`],
      ["GET", `/v1/projects/${id}/turns/00000000-0000-4000-8000-000000000000`],
    ];
    await expectProblems(
      eve,
      attempts.map(([method, path, body]) => ({
        method,
        path,
        body,
        status: 404,
        code: "project_not_found",
      })),
    );
    // Unknown and malformed ids look exactly the same.
    for (const path of [
      "/v1/projects/999",
      "/v1/projects/abc",
      "/v1/projects/0",
      "/v1/projects/1000",
    ]) {
      expect((await call(eve, "GET", path)).body.code).toBe("project_not_found");
    }
    const after = await call<ProjectBody>(anna, "GET", `/v1/projects/${id}`);
    expect(after.body.members.map((m) => m.salutation)).toEqual(["Anna"]);
  });

  it.skipIf(skip)("adds and edits members with the render state's rules", async () => {
    const created = await createProject();
    const id = created.body.project.id;
    const base = `/v1/projects/${id}/members`;

    // Nobody is added without redeeming an invite link (issue 48).
    const direct = await call(anna, "POST", base, { email: "bob@example.com", salutation: "Bob" });
    expect(direct.status).toBe(410);
    expect(direct.body.code).toBe("invite_required");

    const added = await addMember(harness, anna.token, id, {
      email: "BOB@example.com",
      salutation: "Bob",
      teamBriefing: "Vue Router 4.",
    });
    expect(added.status).toBe(201);
    expect(added.body.member).toMatchObject({ salutation: "Bob", role: "member", you: false });
    expect(JSON.stringify(added.body)).not.toContain("bob@example.com");
    const twice = await addMember(harness, anna.token, id, {
      email: "bob@example.com",
      salutation: "Robert",
    });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe("already_member");

    const cases: Array<[unknown, number, string, string?]> = [
      [{ email: "eve@example.com", salutation: "bob" }, 409, "salutation_taken", "salutation"],
      [{ email: "eve@example.com", salutation: "# Eve" }, 400, "invalid_field", "salutation"],
      [{ email: "eve@example.com", salutation: 'Eve "E"' }, 400, "invalid_field", "salutation"],
      [{ email: "eve@example.com", salutation: "Eve\nline" }, 400, "invalid_field", "salutation"],
      [
        { email: "eve@example.com", salutation: "E".repeat(65) },
        400,
        "invalid_field",
        "salutation",
      ],
      [
        { email: "eve@example.com", salutation: "Eve", teamBriefing: "x".repeat(8001) },
        400,
        "invalid_field",
        "teamBriefing",
      ],
      [{ email: "not-an-email", salutation: "Eve" }, 400, "invalid_body"],
      [{ email: "eve@example.com", salutation: "Eve", phone: "+1" }, 400, "invalid_body"],
    ];
    await expectProblems(
      anna,
      cases.map(([body, status, code, field]) => ({
        method: "POST",
        path: `/v1/projects/${id}/invites`,
        body,
        status,
        code,
        field: field ?? null,
      })),
    );

    // A member edits their own entry; a plain member cannot edit someone else's.
    const edited = await call<{ member: { teamBriefing: string } }>(bob, "PATCH", `${base}/me`, {
      teamBriefing: "Vue Router 4, please.",
    });
    expect(edited.status).toBe(200);
    expect(edited.body.member.teamBriefing).toBe("Vue Router 4, please.");
    const annaId = created.body.members[0]?.id ?? "";
    const forbidden = await call(bob, "PATCH", `${base}/${annaId}`, {
      salutation: "Boss",
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("owner_required");
    const notFound = await call(anna, "PATCH", `${base}/not-a-member`, {
      salutation: "X",
    });
    expect(notFound.body.code).toBe("member_not_found");
    const clash = await call(anna, "PATCH", `${base}/me`, { salutation: "BOB" });
    expect(clash.body.code).toBe("salutation_taken");
    const emptyPatch = await call(anna, "PATCH", `${base}/me`, {});
    expect(emptyPatch.body.code).toBe("invalid_body");

    const list = await call<{
      members: Array<{ salutation: string; teamBriefing: string | null }>;
    }>(bob, "GET", base);
    expect(list.body.members.map((m) => [m.salutation, m.teamBriefing])).toEqual([
      ["Anna", "Preferuji Pinia."],
      ["Bob", "Vue Router 4, please."],
    ]);
  });

  it.skipIf(skip)(
    "previews exactly the files a spawn would get, with the caller as the writer",
    async () => {
      const created = await createProject(anna, {
        ...defaultProject,
        description: "E-shop pro\nmalou pekárnu",
        member: {
          salutation: "Anna",
          teamBriefing: "Preferuji Pinia.\r\n\r\nTesty piš ve Vitestu.  ",
        },
      });
      const id = created.body.project.id;
      await addMember(harness, anna.token, id, {
        email: "bob@example.com",
        salutation: "Jirka",
      });
      const members = (await call<ProjectBody>(anna, "GET", `/v1/projects/${id}`)).body.members;

      const asBob = await call<{ files: Array<{ path: string; content: string }>; layout: string }>(
        bob,
        "GET",
        `/v1/projects/${id}/context`,
      );
      expect(asBob.body.layout).toBe("split");
      const state = parseRenderState({
        project: {
          id,
          name: "Pekárna u Jelena",
          url: null,
          description: "E-shop pro\nmalou pekárnu",
        },
        team: members.map((m) => ({
          id: m.id,
          createdAt: m.createdAt,
          salutation: m.salutation,
          teamBriefing: m.teamBriefing,
        })),
        activeMemberId: members.find((m) => m.salutation === "Jirka")?.id,
      });
      if (!state.ok) throw new Error(state.error.message);
      const expected = [
        ...renderContextFiles(state.state, { layout: "split" }).map((f) => ({
          path: f.path,
          content: f.content,
        })),
        { path: ".talkide/project.yml", content: renderProjectYml(id) },
      ];
      expect(asBob.body.files).toEqual(expected);
      expect(asBob.body.files[1]?.content).toBe("# Aktuálně píše\nJirka\n");

      const raw = await call(anna, "GET", `/v1/projects/${id}/context/.talkide/active-writer.md`);
      expect(raw.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(raw.text).toBe("# Aktuálně píše\nAnna\n");
      const claudeMd = await call(anna, "GET", `/v1/projects/${id}/context/CLAUDE.md`);
      expect(claudeMd.text).toContain("> Preferuji Pinia.\n>\n> Testy piš ve Vitestu.\n");
      expect(claudeMd.text.endsWith("\n@.talkide/active-writer.md\n")).toBe(true);
      const missing = await call(anna, "GET", `/v1/projects/${id}/context/secrets.txt`);
      expect(missing.body.code).toBe("context_file_not_found");
    },
  );

  it.skipIf(skip)(
    "keeps member timestamps to the microsecond and renders them as RFC 3339",
    async () => {
      const created = await createProject();
      const memberId = created.body.members[0]?.id ?? "";
      await sql`UPDATE members SET created_at = '2026-05-02 14:32:11.123456+00' WHERE id = ${memberId}`.execute(
        harness.service.database.db,
      );
      const members = await call<{ members: Array<{ createdAt: string }> }>(
        anna,
        "GET",
        `/v1/projects/${created.body.project.id}/members`,
      );
      expect(members.body.members[0]?.createdAt).toBe("2026-05-02T14:32:11.123456Z");
    },
  );

  it.skipIf(skip)("runs a turn end to end and lists it", async () => {
    const created = await createProject();
    const id = created.body.project.id;
    const turn = await sendMessage(harness, anna.token, id, "Ahoj Maro");
    expect(turn.status).toBe(202);
    expect(terminalEvent(turn.events).event).toBe("turn.succeeded");
    const turns = await call<{ turns: Array<Record<string, unknown>> }>(
      anna,
      "GET",
      `/v1/projects/${id}/turns`,
    );
    expect(turns.body.turns).toEqual([
      expect.objectContaining({
        number: 1,
        status: "succeeded",
        message: "Ahoj Maro",
        // The LLM gateway's figure: the fake claude sent it nothing.
        costUsd: 0,
        error: null,
        // Recorded before the spawn: a new process, both instruction files written.
        process: "cold",
        context: expect.objectContaining({
          layout: "split",
          resumeReminderBytes: expect.any(Number) as number,
        }) as unknown,
      }),
    ]);
    const single = await call<{ turn: { context: { files: Array<{ path: string }> } } }>(
      anna,
      "GET",
      `/v1/projects/${id}/turns/${String(turns.body.turns[0]?.id)}`,
    );
    expect(single.body.turn.context.files.map((f) => f.path)).toEqual([
      "CLAUDE.md",
      ".talkide/active-writer.md",
      ".talkide/project.yml",
    ]);
  });

  it.skipIf(skip)(
    "refuses bad requests with stable problem codes and changes nothing",
    async () => {
      const before = await call<{ projects: unknown[] }>(anna, "GET", "/v1/projects");
      const cases: Array<[string, string, unknown, Record<string, string>, number, string]> = [
        [
          "POST",
          "/v1/projects",
          "{not json",
          { "content-type": "application/json" },
          400,
          "invalid_json",
        ],
        [
          "POST",
          "/v1/projects",
          "name=x",
          { "content-type": "text/plain" },
          415,
          "unsupported_media_type",
        ],
        ["POST", "/v1/projects", { name: "x" }, {}, 400, "invalid_body"],
        ["POST", "/v1/projects", { ...defaultProject, owner: "someone" }, {}, 400, "invalid_body"],
        ["POST", "/v1/projects", { ...defaultProject, name: "  " }, {}, 400, "invalid_field"],
        [
          "POST",
          "/v1/projects",
          { ...defaultProject, url: "ftp://example.com" },
          {},
          400,
          "invalid_field",
        ],
        [
          "POST",
          "/v1/projects",
          { ...defaultProject, backendLanguage: "—" },
          {},
          400,
          "invalid_field",
        ],
        [
          "POST",
          "/v1/projects",
          { ...defaultProject, member: { salutation: "1st" } },
          {},
          400,
          "invalid_field",
        ],
        // Blank by the contract (U+0085 and U+2028 are white space) or without input for
        // Claude Code (it trims U+FEFF): either way no turn could run.
        ["POST", "/v1/projects/1/messages", { text: "\u0085\u2028 " }, {}, 400, "invalid_body"],
        ["POST", "/v1/projects/1/messages", { text: "\ufeff" }, {}, 400, "invalid_body"],
        ["GET", "/v1/nothing-here", undefined, {}, 404, "route_not_found"],
        ["GET", "/v1/projects/1/turns?limit=0", undefined, {}, 400, "invalid_query"],
      ];
      await expectProblems(
        anna,
        cases.map(([method, path, body, headers, status, code]) => ({
          method,
          path,
          body,
          headers,
          status,
          code,
        })),
      );
      const after = await call<{ projects: unknown[] }>(anna, "GET", "/v1/projects");
      expect(after.body.projects.length).toBe(before.body.projects.length);
    },
  );

  it.skipIf(skip)("keeps a U+FEFF at the edge of a salutation: it is not white space", async () => {
    const created = await createProject();
    const base = `/v1/projects/${created.body.project.id}/members`;
    // Not trimmed (String#trim would strip it) ...
    const kept = await call<{ member: { salutation: string } }>(anna, "PATCH", `${base}/me`, {
      salutation: "Anna\ufeff",
    });
    expect(kept.status).toBe(200);
    expect(kept.body.member.salutation).toBe("Anna\ufeff");
    // ... but invisible: next to it, "Anna" would look the same (issue 29).
    const added = await call(anna, "POST", `/v1/projects/${created.body.project.id}/invites`, {
      salutation: "Anna",
    });
    expect(added.status).toBe(409);
    expect(added.body.code).toBe("salutation_taken");
  });

  it.skipIf(skip)("answers member ids in any case, as turn ids", async () => {
    const created = await createProject();
    const memberId = created.body.members[0]?.id ?? "";
    expect(memberId).toMatch(/^[0-9a-f-]{36}$/);
    const patched = await call<{ member: { id: string; salutation: string } }>(
      anna,
      "PATCH",
      `/v1/projects/${created.body.project.id}/members/${memberId.toUpperCase()}`,
      { salutation: "Anička" },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.member).toMatchObject({ id: memberId, salutation: "Anička" });
  });

  it.skipIf(skip)("stops at project id 999: the ports domain", async () => {
    await occupyProjectIdsBelow(harness, 999);
    const last = await createProject();
    expect(last.body.project.id).toBe(999);
    expect(last.body.project.ports).toEqual({ be: 9089, fe: 6199 });
    const refused = await call(anna, "POST", "/v1/projects", defaultProject);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("project_limit_reached");
    // A freed id is the next one handed out: ids stay dense.
    const { rows } = await sql<{ id: number }>`DELETE FROM projects
      WHERE id = (SELECT min(id) FROM projects WHERE name = 'placeholder') RETURNING id`.execute(
      harness.service.database.db,
    );
    const reused = await createProject();
    expect(reused.body.project.id).toBe(rows[0]?.id);
  });
});
