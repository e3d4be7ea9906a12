import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  ApiError,
  bearerChallenge,
  readBearer,
  sameSecret,
  sendProblem,
} from "@talkide/service-kit";
import { issueSignInCode } from "../auth/sign-in-codes.ts";
import { addMemberSchema } from "../domain/members.ts";
import { createSeat, operatorMembership } from "../domain/seats.ts";
import { createToken, createUser, findUserIdByEmail, userNotFound } from "../domain/users.ts";
import { projectIdParam, publicLink, type AppDependencies } from "./context.ts";
import { parseBody } from "./problem.ts";

const createUserSchema = z.strictObject({
  email: z.string(),
  displayName: z.string(),
  phone: z.string().nullish(),
});

const createTokenSchema = z.strictObject({ email: z.string() });

/** Neither the length nor the bytes of the admin token leak by timing (`sameSecret`). */
function isAdminToken(header: string | undefined, adminToken: string): boolean {
  const credential = readBearer(header, "spaces");
  return credential.kind === "token" && sameSecret(credential.token, adminToken);
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
        reply.header("www-authenticate", bearerChallenge("talkide-admin")),
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
      const { seat, link } = await createSeat(db, membership, input);
      return reply.code(201).send({
        seat,
        link: { ...link, url: publicLink(deps, link.path) },
      });
    });

    scope.post("/admin/v1/sign-in-links", async (request, reply) => {
      const { email } = parseBody(createTokenSchema, request.body);
      const userId = await findUserIdByEmail(db, email);
      if (userId === null) throw userNotFound();
      const code = await issueSignInCode(db, userId);
      return reply.code(201).send({
        link: { ...code, url: publicLink(deps, code.path) },
      });
    });
    done();
  });
}
