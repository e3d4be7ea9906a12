import {
  apiTokenSchema,
  browserSessionSchema,
  contextFileSchema,
  inviteAcceptedSchema,
  invitePreviewSchema,
  inviteSchema,
  memberSchema,
  meSchema,
  portStateSchema,
  projectSchema,
  quarantinedFileSchema,
  recognizeStoredEvent,
  seatSchema,
  signedInSchema,
  signInPreviewSchema,
  turnRecordSchema,
  turnSchema,
} from "@talkide/be-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  api,
  defaultProject,
  sendMessage,
  startHarness,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";

/**
 * The backend's real answers against `@talkide/be-api`, the one description of them the
 * console is typed with: every JSON view and every event of a real turn fits, and a database
 * holding events of an older release (another shape, a name this one does not know) still
 * streams them, byte for byte as stored.
 */
describe("the API contract (@talkide/be-api) against the real service", () => {
  let harness: Harness;
  let anna: TestUser;
  let projectId: number;

  beforeAll(async () => {
    harness = await startHarness();
    anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna Nováková" });
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    projectId = created.body.project.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  const get = async (path: string): Promise<unknown> =>
    (await api(harness, anna.token, "GET", path)).body;

  it("every event of a real turn is one of the contract's, with its payload", async () => {
    const turn = await sendMessage(harness, anna.token, projectId, "Ahoj Maro");
    expect(turn.events.length).toBeGreaterThan(3);
    for (const event of turn.events) {
      const recognized = recognizeStoredEvent({
        seq: event.id,
        type: event.event,
        data: event.data,
      });
      expect(recognized, `${event.event} ${JSON.stringify(event.data)}`).not.toHaveProperty(
        "unrecognized",
      );
    }
  });

  it("every JSON view fits its schema, field for field", async () => {
    const base = `/v1/projects/${projectId}`;
    meSchema.parse(await get("/v1/me"));
    z.strictObject({ projects: z.array(projectSchema) }).parse(await get("/v1/projects"));
    z.strictObject({ project: projectSchema, members: z.array(memberSchema) }).parse(
      await get(base),
    );
    z.strictObject({ turns: z.array(turnSchema).min(1) }).parse(await get(`${base}/turns`));
    z.strictObject({ ports: z.array(portStateSchema) }).parse(await get(`${base}/ports`));
    z.strictObject({
      layout: z.string(),
      activeMemberId: z.string(),
      files: z.array(contextFileSchema),
    }).parse(await get(`${base}/context`));
    const invite = await api<{ seat: { id: string }; link: { code: string } }>(
      harness,
      anna.token,
      "POST",
      `${base}/invites`,
      { email: "bob@example.com", salutation: "Bobe" },
    );
    inviteSchema.parse(invite.body);
    z.strictObject({ seats: z.array(seatSchema) }).parse(await get(`${base}/invites`));
    const relinked = await api<{ link: { code: string } }>(
      harness,
      anna.token,
      "POST",
      `${base}/invites/${invite.body.seat.id}/link`,
    );
    inviteSchema.parse(relinked.body);
    invitePreviewSchema.parse(
      (await api(harness, null, "POST", "/v1/invites/preview", { code: relinked.body.link.code }))
        .body,
    );
    inviteAcceptedSchema.parse(
      (
        await api(harness, null, "POST", "/v1/invites/accept", {
          code: relinked.body.link.code,
          join: "new-account",
        })
      ).body,
    );
    const link = new URL(await harness.signInLink("anna@example.com"));
    const code = link.hash.slice("#code=".length);
    signInPreviewSchema.parse(
      (await api(harness, null, "POST", "/v1/sign-in/preview", { code })).body,
    );
    signedInSchema.parse((await api(harness, null, "POST", "/v1/sign-in", { code })).body);
    z.strictObject({ sessions: z.array(browserSessionSchema) }).parse(await get("/v1/me/sessions"));
    const made = await api(harness, anna.token, "POST", "/v1/me/tokens", { name: "contract" });
    z.strictObject({ token: apiTokenSchema, secret: z.string() }).parse(made.body);
    z.strictObject({ tokens: z.array(apiTokenSchema).min(1) }).parse(await get("/v1/me/tokens"));
    z.strictObject({ files: z.array(quarantinedFileSchema) }).parse(
      await get(`${base}/quarantine`),
    );
    const queued = await api(harness, anna.token, "POST", `${base}/messages`, { text: "Znovu" });
    z.strictObject({ turn: turnRecordSchema, events: z.string() }).parse(queued.body);
    const queuedId = (queued.body as { turn: { id: string } }).turn.id;
    const stopped = await api(harness, anna.token, "POST", `${base}/turns/${queuedId}/stop`);
    // Stopped while queued, or it had finished already: either way the contract's answer.
    if (stopped.status === 202) z.strictObject({ turn: turnSchema }).parse(stopped.body);
    else expect(stopped.body).toMatchObject({ code: "turn_finished" });
  });

  it("streams a stored event of an older shape or an unknown name exactly as stored", async () => {
    const turn = await sendMessage(harness, anna.token, projectId, "Jak se máš?");
    const turnId = turn.headers.get("location")?.split("/").at(-1) ?? "";
    const { db } = harness.service.database;
    // What an older release could have written: turn.started before `process` was recorded,
    // and an event this release has no name for.
    await db
      .updateTable("turn_events")
      .set({ data: JSON.stringify({ turnId, resume: false }) })
      .where("turn_id", "=", turnId)
      .where("type", "=", "turn.started")
      .execute();
    await db
      .updateTable("turn_events")
      .set({ type: "agent.thinking" })
      .where("turn_id", "=", turnId)
      .where("type", "=", "agent.init")
      .execute();
    const rows = await db
      .selectFrom("turn_events")
      .select(["seq", "type", "data"])
      .where("turn_id", "=", turnId)
      .orderBy("seq")
      .execute();
    expect(rows.map((row) => row.type)).toContain("agent.thinking");
    const expected = rows
      .map((row) => `id: ${row.seq}\nevent: ${row.type}\ndata: ${JSON.stringify(row.data)}\n\n`)
      .join("");

    const stream = await api(
      harness,
      anna.token,
      "GET",
      `/v1/projects/${projectId}/turns/${turnId}/events`,
    );
    expect(stream.status).toBe(200);
    expect(stream.text).toBe(expected);
    // The turn's record reads the older turn.started as before (no process from the event).
    const listed = await api<{ turn: { status: string } }>(
      harness,
      anna.token,
      "GET",
      `/v1/projects/${projectId}/turns/${turnId}`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.turn.status).toBe("succeeded");
  });
});
