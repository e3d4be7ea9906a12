import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, bearerRefusal, readBearer } from "@talkide/service-kit";
import { DaemonUnavailable, type DaemonClient } from "./daemon-client.ts";
import { findMemberByAgentId } from "./members.ts";
import type { HubDb, MemberRow } from "./schema.ts";
import { HUB_TOKEN_PREFIX, verifyHubToken } from "./tokens.ts";

const REALM = "talkide-hub";

const members = new WeakMap<FastifyRequest, MemberRow>();

/** The member a request was authenticated as (only inside routes behind `requireMember`). */
export function callerOf(request: FastifyRequest): MemberRow {
  const member = members.get(request);
  if (member === undefined) throw new Error("route is not behind requireMember");
  return member;
}

type Check = { ok: true; member: MemberRow } | { ok: false; expired: boolean };

/**
 * Bearer check for the member API: a hub member token (`thk_...`), or the turn credential
 * a daemon gave an agent's turn, which that daemon vouches for while the turn runs.
 */
export function requireMember(db: HubDb, daemon: DaemonClient) {
  const check = async (token: string): Promise<Check> => {
    if (token.startsWith(HUB_TOKEN_PREFIX)) {
      const member = await verifyHubToken(db, token);
      return member === undefined ? { ok: false, expired: false } : { ok: true, member };
    }
    let turn;
    try {
      turn = await daemon.verifyTurnCredential(token);
    } catch (error) {
      if (!(error instanceof DaemonUnavailable)) throw error;
      throw new ApiError(
        503,
        "daemon_unavailable",
        "The hub cannot ask the agent's daemon about this token right now; try again.",
      );
    }
    if (!turn.active) return { ok: false, expired: turn.reason === "turn_ended" };
    const member = await findMemberByAgentId(db, turn.agentId);
    return member === undefined ? { ok: false, expired: false } : { ok: true, member };
  };
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const credential = readBearer(request.headers.authorization, "whitespace");
    if (credential.kind !== "token") {
      throw bearerRefusal(
        reply,
        { realm: REALM },
        "unauthorized",
        "Send a hub member token: Authorization: Bearer <token> (ticlawk reads it from TICLAWK_TOKEN).",
      );
    }
    const { token } = credential;
    const checked: Check = token.length > 200 ? { ok: false, expired: false } : await check(token);
    if (!checked.ok) {
      throw bearerRefusal(
        reply,
        { realm: REALM, error: "invalid_token" },
        checked.expired ? "token_expired" : "invalid_token",
        checked.expired
          ? "This agent token belonged to a turn that has ended; each turn gets a fresh one."
          : "This is not a valid hub member token; a person gets one with: talkide-hub member add --human <handle>.",
      );
    }
    members.set(request, checked.member);
  };
}
