import type { FastifyReply, FastifyRequest } from "fastify";
import type { DaemonDb, TokenScope } from "../db/schema.ts";
import { verifyToken } from "../store/tokens.ts";
import { ApiError, bearerRefusal, readBearer } from "@talkide/service-kit";

const REALM = "talkide-daemon";

/**
 * Bearer-token check for a route. An `admin` token passes every check; an `intake` token
 * passes only where intake is allowed.
 */
export function requireScope(db: DaemonDb, allowed: readonly TokenScope[]) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const credential = readBearer(request.headers.authorization, "whitespace");
    if (credential.kind === "none") {
      throw bearerRefusal(
        reply,
        { realm: REALM },
        "unauthorized",
        "Send a bearer token: Authorization: Bearer <token>.",
      );
    }
    if (credential.kind === "malformed") {
      throw bearerRefusal(
        reply,
        { realm: REALM, error: "invalid_request" },
        "unauthorized",
        "The Authorization header must read: Bearer <token>.",
      );
    }
    const found = await verifyToken(db, credential.token);
    if (found === null) {
      throw bearerRefusal(
        reply,
        { realm: REALM, error: "invalid_token" },
        "invalid_token",
        "This token is unknown or revoked; create one with talkide-daemon token create.",
      );
    }
    if (found.scope !== "admin" && !allowed.includes(found.scope)) {
      throw new ApiError(403, "forbidden", `A token with scope ${found.scope} may not do this.`);
    }
  };
}
