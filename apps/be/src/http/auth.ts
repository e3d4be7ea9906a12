import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError, bearerChallenge, readBearer, sendProblem } from "@talkide/service-kit";
import { apiTokenIsLive, findApiTokenUser } from "../auth/api-tokens.ts";
import {
  browserSessionIsLive,
  findBrowserSession,
  SESSION_COOKIE,
} from "../auth/browser-sessions.ts";
import { isTokenShaped } from "../auth/tokens.ts";
import { findUserById, type User } from "../domain/users.ts";
import type { AppDependencies } from "./context.ts";
import { isAllowedOrigin } from "./origin.ts";
import type { Principal } from "./principal.ts";

const PUBLIC_ROUTES = new Set(["/health"]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the auth hook on every route but the public ones. */
    user: User | null;
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /**
     * Reachable signed out, but told who is signed in when someone is (sign-in and invite
     * links: they ask before switching accounts).
     */
    optionalAuth?: boolean;
  }
}

const unauthorized = (detail: string): ApiError =>
  new ApiError(401, "unauthorized", detail, { title: "Unauthorized" });

/**
 * Every route except the public ones needs a signed-in caller: `Authorization: Bearer <API
 * token>`, or the console's session cookie. A bearer header, when present, is the only
 * credential looked at (a script never acts through a browser's session by accident).
 * A state-changing request that rides on the cookie must come from the console's own origin.
 */
export function registerAuth(app: FastifyInstance, deps: AppDependencies): void {
  app.decorateRequest("user", null);
  app.decorateRequest("principal", null);
  app.addHook("onRequest", async (request, reply) => {
    if (PUBLIC_ROUTES.has(request.routeOptions.url ?? "")) return;
    const config = request.routeOptions.config;
    // The web console's static files (see console.ts) and the admin routes (their own token).
    if (config.publicRoute === true) return;
    const optional = config.optionalAuth === true;
    const identified = await identify(request, deps);
    if (identified === "bad_token") {
      if (optional) return;
      return refuse(
        reply,
        unauthorized(
          "This API token is not valid (unknown, revoked or expired); create a new one in the console's Account view, or run `npx talkide-be create-token --email <you>`.",
        ),
      );
    }
    if (identified === null) {
      if (optional) return;
      return refuse(
        reply,
        unauthorized(
          "Sign in: open a sign-in link in the console, or send an API token as `Authorization: Bearer <token>`.",
        ),
      );
    }
    if (
      identified.principal.kind === "session" &&
      !SAFE_METHODS.has(request.method) &&
      !isAllowedOrigin(request, deps.accounts.publicUrl)
    ) {
      return refuse(reply, originRefused());
    }
    request.user = identified.user;
    request.principal = identified.principal;
  });
}

export const originRefused = (): ApiError =>
  new ApiError(
    403,
    "origin_refused",
    "This request rides on the console's session cookie but did not come from the console's own page; send it from the console, or use an API token.",
    { title: "Request from another site refused" },
  );

async function refuse(reply: FastifyReply, error: ApiError): Promise<FastifyReply> {
  // The challenge belongs to a 401 only: a refused origin is not a missing credential.
  if (error.httpStatus === 401) void reply.header("www-authenticate", bearerChallenge("talkide"));
  await sendProblem(reply, error);
  return reply;
}

async function identify(
  request: FastifyRequest,
  deps: AppDependencies,
): Promise<{ user: User; principal: Principal } | "bad_token" | null> {
  const header = request.headers.authorization;
  // Present, even empty: the only credential looked at.
  if (header !== undefined) {
    const credential = readBearer(header, "spaces");
    const token =
      credential.kind === "token" && isTokenShaped(credential.token) ? credential.token : null;
    const found = token === null ? null : await findApiTokenUser(deps.db, token);
    const user = found === null ? null : await findUserById(deps.db, found.userId);
    if (found === null || user === null) return "bad_token";
    return { user, principal: { kind: "token", tokenId: found.tokenId } };
  }
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie === undefined || cookie === "") return null;
  const session = await findBrowserSession(deps.db, cookie, deps.accounts.sessionIdleHours);
  const user = session === null ? null : await findUserById(deps.db, session.userId);
  if (session === null || user === null) return null;
  return { user, principal: { kind: "session", sessionId: session.sessionId } };
}

/** Whether a request's credential still opens anything (open event streams ask again and again). */
export async function principalIsLive(
  deps: AppDependencies,
  principal: Principal | null,
): Promise<boolean> {
  if (principal === null) return false;
  if (principal.kind === "session") {
    return browserSessionIsLive(deps.db, principal.sessionId, deps.accounts.sessionIdleHours);
  }
  return apiTokenIsLive(deps.db, principal.tokenId);
}
