import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ApiError, sendProblem } from "@talkide/service-kit";
import { hashToken } from "../auth/tokens.ts";
import { inviteMember, operatorMembership } from "../domain/invites.ts";
import { addMemberSchema } from "../domain/members.ts";
import { createToken, createUser } from "../domain/users.ts";
import { projectIdParam, type AppDependencies } from "./context.ts";
import { parseBody } from "./problem.ts";

const createUserSchema = z.strictObject({
  email: z.string(),
  displayName: z.string(),
  phone: z.string().nullish(),
});

const createTokenSchema = z.strictObject({ email: z.string() });

/** Compares hashes, so neither the length nor the bytes of the admin token leak by timing. */
function isAdminToken(header: string | undefined, adminToken: string): boolean {
  const given = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? "")?.[1];
  if (given === undefined) return false;
  return timingSafeEqual(
    Buffer.from(hashToken(given), "hex"),
    Buffer.from(hashToken(adminToken), "hex"),
  );
}

/**
 * The operator's routes under `/admin/v1`, which `talkide-be` uses while the service runs
 * (the embedded database admits one process). They take the local admin token from
 * `<dataDir>/admin-token`, never a user's API token: whoever can read that file is this
 * machine's operator and could open the database anyway.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const { db } = deps;
  const adminToken = deps.adminToken ?? null;
  void app.register((scope, _options, done) => {
    scope.addHook("onRoute", (route) => {
      // Not a user's API token: the user auth hook leaves these routes to the hook below.
      route.config = { ...route.config, publicRoute: true };
    });
    scope.addHook("onRequest", async (request, reply) => {
      if (adminToken !== null && isAdminToken(request.headers.authorization, adminToken)) return;
      await sendProblem(
        reply.header("www-authenticate", 'Bearer realm="talkide-admin"'),
        new ApiError(
          401,
          "admin_token_invalid",
          "Send the service's admin token (in <data dir>/admin-token) as `Authorization: Bearer <token>`; `npx talkide-be` does this for you.",
          { title: "Unauthorized" },
        ),
      );
      return reply;
    });

    scope.post("/admin/v1/users", async (request, reply) => {
      const input = parseBody(createUserSchema, request.body);
      const { user, token } = await createUser(db, input);
      return reply.code(201).send({ user: { id: user.id }, token });
    });

    scope.post("/admin/v1/tokens", async (request, reply) => {
      const { email } = parseBody(createTokenSchema, request.body);
      return reply.code(201).send({ token: await createToken(db, email) });
    });

    scope.post("/admin/v1/projects/:projectId/invites", async (request, reply) => {
      const input = parseBody(addMemberSchema, request.body);
      const membership = await operatorMembership(db, projectIdParam(request));
      const result = await inviteMember(db, membership, input, { byOperator: true });
      return reply
        .code(result.added ? 201 : 200)
        .send({ member: result.member, signIn: result.signIn });
    });
    done();
  });
}
