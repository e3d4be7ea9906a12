import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { redeemSignInCode } from "../auth/sign-in-codes.ts";
import { SIGN_IN_CODE_PREFIX } from "../auth/tokens.ts";
import { inviteMember } from "../domain/invites.ts";
import { addMemberSchema } from "../domain/members.ts";
import { membershipOf, type AppDependencies } from "./context.ts";
import { parseBody } from "./problem.ts";

const signInSchema = z.strictObject({
  code: z
    .string()
    .regex(
      new RegExp(`^${SIGN_IN_CODE_PREFIX}[A-Za-z0-9_-]{1,200}$`),
      `must be a sign-in code (${SIGN_IN_CODE_PREFIX}…) from an invite's link`,
    ),
});

/**
 * `POST /v1/projects/:projectId/invites` (an owner brings a person in and gets a one-time
 * sign-in link) and `POST /v1/sign-in` (the link's code, once, for an API token).
 */
export function registerInviteRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const { db } = deps;

  app.post("/v1/projects/:projectId/invites", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    const input = parseBody(addMemberSchema, request.body);
    const result = await inviteMember(db, membership, input, { byOperator: false });
    return reply
      .code(result.added ? 201 : 200)
      .send({ member: result.member, signIn: result.signIn });
  });

  // Public: whoever holds the code is the person it was issued for, once.
  app.post("/v1/sign-in", { config: { publicRoute: true } }, async (request) => {
    const { code } = parseBody(signInSchema, request.body);
    return { token: await redeemSignInCode(db, code) };
  });
}
