import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../http/api-error.ts";
import type { HubDb, MemberRow } from "./schema.ts";
import { HUB_TOKEN_PREFIX, verifyHubToken } from "./tokens.ts";

const members = new WeakMap<FastifyRequest, MemberRow>();

/** The member a request was authenticated as (only inside routes behind `requireMember`). */
export function callerOf(request: FastifyRequest): MemberRow {
  const member = members.get(request);
  if (member === undefined) throw new Error("route is not behind requireMember");
  return member;
}

/** Bearer check for the member API: a hub member token (`thk_...`). */
export function requireMember(db: HubDb) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
    const token = match?.[1];
    if (token === undefined) {
      void reply.header("www-authenticate", 'Bearer realm="talkide-hub"');
      throw new ApiError(
        401,
        "unauthorized",
        "Send a hub member token: Authorization: Bearer <token> (ticlawk reads it from TICLAWK_TOKEN).",
      );
    }
    const checked = token.startsWith(HUB_TOKEN_PREFIX) ? await verifyHubToken(db, token) : null;
    if (checked === null || !checked.ok) {
      void reply.header("www-authenticate", 'Bearer realm="talkide-hub", error="invalid_token"');
      throw new ApiError(
        401,
        checked?.ok === false && checked.reason === "turn_ended"
          ? "token_expired"
          : "invalid_token",
        checked?.ok === false && checked.reason === "turn_ended"
          ? "This agent token belonged to a turn that has ended; each turn gets a fresh one."
          : "This is not a valid hub member token; a person gets one with: talkide-daemon hub member add --human <handle>.",
      );
    }
    members.set(request, checked.member);
  };
}
