import type { FastifyReply, FastifyRequest } from "fastify";
import type { DaemonDb, TokenScope } from "../db/schema.ts";
import { verifyToken } from "../store/tokens.ts";
import { ApiError } from "@talkide/service-kit";

/**
 * Bearer-token check for a route. An `admin` token passes every check; an `intake` token
 * passes only where intake is allowed.
 */
export function requireScope(db: DaemonDb, allowed: readonly TokenScope[]) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined || header === "") {
      void reply.header("www-authenticate", 'Bearer realm="talkide-daemon"');
      throw new ApiError(
        401,
        "unauthorized",
        "Send a bearer token: Authorization: Bearer <token>.",
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const token = match?.[1];
    if (token === undefined) {
      void reply.header(
        "www-authenticate",
        'Bearer realm="talkide-daemon", error="invalid_request"',
      );
      throw new ApiError(
        401,
        "unauthorized",
        "The Authorization header must read: Bearer <token>.",
      );
    }
    const found = await verifyToken(db, token);
    if (found === null) {
      void reply.header("www-authenticate", 'Bearer realm="talkide-daemon", error="invalid_token"');
      throw new ApiError(
        401,
        "invalid_token",
        "This token is unknown or revoked; create one with talkide-daemon token create.",
      );
    }
    if (found.scope !== "admin" && !allowed.includes(found.scope)) {
      throw new ApiError(403, "forbidden", `A token with scope ${found.scope} may not do this.`);
    }
  };
}
