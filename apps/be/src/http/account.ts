import type { FastifyInstance, FastifyRequest } from "fastify";
import { trimWhiteSpace } from "@talkide/text";
import { z } from "zod";
import { ApiError } from "@talkide/service-kit";
import {
  findApiTokenUser,
  issueApiToken,
  listApiTokens,
  MAX_TOKEN_LIFETIME_DAYS,
  revokeApiToken,
  tokenNotFound,
} from "../auth/api-tokens.ts";
import {
  endBrowserSession,
  listBrowserSessions,
  sessionNotFound,
  startBrowserSession,
} from "../auth/browser-sessions.ts";
import { previewSignInCode, spendSignInCode } from "../auth/sign-in-codes.ts";
import { SIGN_IN_CODE_PREFIX, uuidOrNull } from "../auth/tokens.ts";
import { findUserById, type User } from "../domain/users.ts";
import { originRefused } from "./auth.ts";
import { currentPrincipal, type AppDependencies } from "./context.ts";
import { isForeignOrigin } from "./origin.ts";
import { parseBody } from "./problem.ts";
import { clearSessionCookie, setSessionCookie } from "./session-cookie.ts";

const signInCode = z
  .string()
  .regex(
    new RegExp(`^${SIGN_IN_CODE_PREFIX}[A-Za-z0-9_-]{1,200}$`),
    `must be a sign-in code (${SIGN_IN_CODE_PREFIX}…) from a sign-in link`,
  );

const signInSchema = z.union([
  z.strictObject({ code: signInCode, switchAccount: z.boolean().optional() }),
  z.strictObject({
    token: z.string().regex(/^tkbe_[A-Za-z0-9_-]{1,200}$/, "must be an API token (tkbe_…)"),
    switchAccount: z.boolean().optional(),
  }),
]);

const previewSchema = z.strictObject({ code: signInCode });

const newTokenSchema = z.strictObject({
  name: z
    .string()
    .overwrite(trimWhiteSpace)
    .min(1, "must not be blank")
    .max(100, "must be at most 100 characters"),
  expiresInDays: z.number().int().min(1).max(MAX_TOKEN_LIFETIME_DAYS).optional(),
});

/** The signed-in account, as sign-in answers show it (the caller's own name, nobody else's). */
const accountOf = (user: User) => ({ id: user.id, displayName: user.displayName });

export const accountSwitchRequired = (): ApiError =>
  new ApiError(
    409,
    "account_switch_required",
    "This browser is signed in to another account. Confirm that you want to switch (send `switchAccount: true`), or sign out first.",
    { title: "Signed in as someone else" },
  );

/** A browser signed in to another account must say yes before a link switches it. */
export function refuseSilentSwitch(
  request: FastifyRequest,
  userId: string,
  switchAccount: boolean | undefined,
): void {
  const current = request.user;
  if (current !== null && current.id !== userId && switchAccount !== true) {
    throw accountSwitchRequired();
  }
}

/**
 * Sign-in, sign-out, and a person's own sessions and API tokens. A browser signs in with a
 * one-time code (a sign-in link) or an API token pasted once, and gets a session cookie.
 */
export function registerAccountRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const { db } = deps;
  const signedOutOk = { config: { optionalAuth: true } };

  app.post("/v1/sign-in/preview", signedOutOk, async (request) => {
    const { code } = parseBody(previewSchema, request.body);
    const preview = await previewSignInCode(db, code);
    return {
      account: { displayName: preview.displayName },
      expiresAt: preview.expiresAt,
      signedInAs: request.user === null ? null : { displayName: request.user.displayName },
    };
  });

  app.post("/v1/sign-in", signedOutOk, async (request, reply) => {
    // A foreign page may not sign this browser in to an account of its choosing.
    if (isForeignOrigin(request, deps.accounts.publicUrl)) throw originRefused();
    const input = parseBody(signInSchema, request.body);
    const user = await db.transaction().execute(async (trx) => {
      let userId: string;
      if ("code" in input) {
        const preview = await previewSignInCode(trx, input.code);
        refuseSilentSwitch(request, preview.userId, input.switchAccount);
        userId = await spendSignInCode(trx, input.code);
      } else {
        const found = await findApiTokenUser(trx, input.token);
        if (found === null) {
          throw new ApiError(
            401,
            "unauthorized",
            "This API token is not valid (unknown, revoked or expired).",
            { title: "Unauthorized" },
          );
        }
        refuseSilentSwitch(request, found.userId, input.switchAccount);
        userId = found.userId;
      }
      const secret = await startBrowserSession(trx, userId, request.headers["user-agent"]);
      setSessionCookie(reply, deps, secret);
      return findUserById(trx, userId);
    });
    if (user === null) throw new Error("a sign-in found no user");
    return { user: accountOf(user) };
  });

  app.post("/v1/sign-out", async (request, reply) => {
    const { user, principal } = currentPrincipal(request);
    if (principal.kind === "session") await endBrowserSession(db, user.id, principal.sessionId);
    clearSessionCookie(reply, deps);
    return reply.code(204).send();
  });

  app.get("/v1/me/sessions", async (request) => {
    const { user, principal } = currentPrincipal(request);
    const current = principal.kind === "session" ? principal.sessionId : null;
    return {
      sessions: await listBrowserSessions(db, user.id, deps.accounts.sessionIdleHours, current),
    };
  });

  app.delete("/v1/me/sessions/:sessionId", async (request, reply) => {
    const { user, principal } = currentPrincipal(request);
    const id = uuidOrNull((request.params as { sessionId: string }).sessionId);
    if (id === null) throw sessionNotFound();
    await endBrowserSession(db, user.id, id);
    if (principal.kind === "session" && principal.sessionId === id) clearSessionCookie(reply, deps);
    return reply.code(204).send();
  });

  app.get("/v1/me/tokens", async (request) => ({
    tokens: await listApiTokens(db, currentPrincipal(request).user.id),
  }));

  app.post("/v1/me/tokens", async (request, reply) => {
    const { user } = currentPrincipal(request);
    const input = parseBody(newTokenSchema, request.body);
    const issued = await issueApiToken(db, user.id, {
      name: input.name,
      lifetimeDays: input.expiresInDays ?? deps.accounts.tokenLifetimeDays,
    });
    return reply.code(201).send({ token: issued.token, secret: issued.secret });
  });

  app.delete("/v1/me/tokens/:tokenId", async (request, reply) => {
    const { user } = currentPrincipal(request);
    const id = uuidOrNull((request.params as { tokenId: string }).tokenId);
    if (id === null) throw tokenNotFound();
    await revokeApiToken(db, user.id, id);
    return reply.code(204).send();
  });
}
