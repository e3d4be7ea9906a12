import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { bearerRefusal, parseInput, readBearer, sameSecret } from "@talkide/service-kit";
import type { DaemonClient } from "../daemon-client.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { checkText } from "../input.ts";
import { checkHandle, createMember, listMembers, requireMemberByHandle } from "../members.ts";
import { nameKey, newGroupId, normalizeName, SAFE_NAME_RULE } from "../names.ts";
import { ROLES, type HubDb } from "../schema.ts";
import { issueMemberToken } from "../tokens.ts";
import { memberView } from "./member-api.ts";

/**
 * Administration of the hub with its admin token (`talkide-hub ...`): members and their
 * tokens, groups and who is in them.
 */
export function registerAdminApi(
  app: FastifyInstance,
  db: HubDb,
  options: { readonly adminToken: string; readonly daemon: DaemonClient },
): void {
  void app.register(
    (scope, _options, done) => {
      scope.addHook("preHandler", requireAdmin(options.adminToken));

      scope.get("/members", async () => ({ members: (await listMembers(db)).map(memberView) }));

      /** Adds a person (answering with their token, shown once) or binds a daemon agent. */
      scope.post("/members", async (request, reply) => {
        const b = parseInput(
          z.discriminatedUnion("kind", [
            z.strictObject({
              kind: z.literal("human"),
              handle: z.string().max(200),
              joinGeneral: z.boolean().default(true),
              generalRole: z.enum(ROLES).nullish(),
            }),
            z.strictObject({
              kind: z.literal("agent"),
              agentId: z.string().min(1).max(200),
              handle: z.string().max(200).nullish(),
              joinGeneral: z.boolean().default(true),
              generalRole: z.enum(ROLES).nullish(),
            }),
          ]),
          request.body,
          "invalid_body",
        );
        const member = await createMember(
          db,
          {
            kind: b.kind,
            handle: b.kind === "agent" ? (b.handle ?? b.agentId) : b.handle,
            agentId: b.kind === "agent" ? b.agentId : null,
            joinGeneral: b.joinGeneral,
            generalRole: b.generalRole ?? null,
          },
          (agentId) => options.daemon.agentExists(agentId),
        );
        const token = member.kind === "human" ? await issueMemberToken(db, member.id) : null;
        return reply.code(201).send({ member: memberView(member), token });
      });

      /** A new long-lived token for a member (a person who lost theirs, or an agent used by hand). */
      scope.post("/members/:handle/tokens", async (request, reply) => {
        const { handle } = parseInput(
          z.strictObject({ handle: z.string().max(200) }),
          request.params,
          "invalid_params",
        );
        const member = await requireMemberByHandle(db, checkHandle(handle));
        return reply
          .code(201)
          .send({ member: memberView(member), token: await issueMemberToken(db, member.id) });
      });

      scope.post("/groups", async (request, reply) => {
        const b = parseInput(
          z.strictObject({
            name: z.string().max(200),
            description: z.string().max(2000).nullish(),
            members: z
              .array(
                z.strictObject({
                  handle: z.string().max(200),
                  role: z.enum(ROLES).default("member"),
                }),
              )
              .max(1000)
              .default([]),
          }),
          request.body,
          "invalid_body",
        );
        const name = normalizeName(b.name);
        if (name === null)
          throw badRequest("invalid_group_name", `A group name is ${SAFE_NAME_RULE}.`, "name");
        const description =
          b.description == null
            ? null
            : checkText(b.description, { path: "description", maxChars: 2000 });
        const group = await db.transaction().execute(async (trx) => {
          const taken = await trx
            .selectFrom("hub_conversations")
            .select("id")
            .where("name_key", "=", nameKey(name))
            .executeTakeFirst();
          if (taken !== undefined)
            throw conflict("group_exists", `A group #${name} exists already.`);
          const row = await trx
            .insertInto("hub_conversations")
            .values({ id: newGroupId(), kind: "group", name, name_key: nameKey(name), description })
            .returningAll()
            .executeTakeFirstOrThrow();
          for (const entry of b.members) {
            const member = await requireMemberByHandle(
              trx,
              checkHandle(entry.handle, "members.handle"),
            );
            await trx
              .insertInto("hub_conversation_members")
              .values({ conversation_id: row.id, member_id: member.id, role: entry.role })
              .onConflict((oc) =>
                oc.columns(["conversation_id", "member_id"]).doUpdateSet({ role: entry.role }),
              )
              .execute();
          }
          return row;
        });
        return reply
          .code(201)
          .send({ group: { id: group.id, name: group.name, description: group.description } });
      });

      /** Adds a member to a group, or changes their role there. */
      scope.put("/groups/:name/members/:handle", async (request) => {
        const p = parseInput(
          z.strictObject({ name: z.string().max(200), handle: z.string().max(200) }),
          request.params,
          "invalid_params",
        );
        const { role } = parseInput(
          z.strictObject({ role: z.enum(ROLES).default("member") }),
          request.body,
          "invalid_body",
        );
        const group = await groupByName(db, p.name);
        const member = await requireMemberByHandle(db, checkHandle(p.handle));
        await db
          .insertInto("hub_conversation_members")
          .values({ conversation_id: group.id, member_id: member.id, role })
          .onConflict((oc) => oc.columns(["conversation_id", "member_id"]).doUpdateSet({ role }))
          .execute();
        return { group: group.name, handle: member.handle, role };
      });

      scope.delete("/groups/:name/members/:handle", async (request) => {
        const p = parseInput(
          z.strictObject({ name: z.string().max(200), handle: z.string().max(200) }),
          request.params,
          "invalid_params",
        );
        const group = await groupByName(db, p.name);
        const member = await requireMemberByHandle(db, checkHandle(p.handle));
        const result = await db
          .deleteFrom("hub_conversation_members")
          .where("conversation_id", "=", group.id)
          .where("member_id", "=", member.id)
          .executeTakeFirst();
        if (result.numDeletedRows === 0n)
          throw notFound("not_a_member", `@${member.handle} is not in #${group.name ?? ""}.`);
        return { group: group.name, handle: member.handle, removed: true };
      });

      done();
    },
    { prefix: "/hub/v1/admin" },
  );
}

async function groupByName(db: HubDb, name: string) {
  const group = await db
    .selectFrom("hub_conversations")
    .selectAll()
    .where("kind", "=", "group")
    .where("name_key", "=", nameKey(name))
    .executeTakeFirst();
  if (group === undefined) throw notFound("unknown_group", "No group has this name.");
  return group;
}

/** Bearer check for the admin API: exactly the hub's admin token. */
function requireAdmin(adminToken: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    await Promise.resolve();
    const credential = readBearer(request.headers.authorization, "whitespace");
    if (credential.kind === "token" && sameSecret(credential.token, adminToken)) return;
    throw bearerRefusal(
      reply,
      { realm: "talkide-hub-admin" },
      credential.kind === "token" ? "invalid_token" : "unauthorized",
      "Send the hub's admin token: Authorization: Bearer <token> (in <hub data dir>/admin-token).",
    );
  };
}
