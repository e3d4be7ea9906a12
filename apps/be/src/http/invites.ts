import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ApiError } from "@talkide/service-kit";
import { startBrowserSession } from "../auth/browser-sessions.ts";
import { INVITE_CODE_PREFIX, uuidOrNull } from "../auth/tokens.ts";
import { addMemberSchema } from "../domain/members.ts";
import {
  createSeat,
  listSeats,
  previewSeat,
  reissueSeatLink,
  seatNotFound,
  takeSeat,
  withdrawSeat,
  type SeatLink,
} from "../domain/seats.ts";
import { insertUser } from "../domain/users.ts";
import { originRefused } from "./auth.ts";
import { membershipOf, publicLink, type AppDependencies } from "./context.ts";
import { isForeignOrigin } from "./origin.ts";
import { parseBody } from "./problem.ts";
import { setSessionCookie } from "./session-cookie.ts";

const inviteCode = z
  .string()
  .regex(
    new RegExp(`^${INVITE_CODE_PREFIX}[A-Za-z0-9_-]{1,200}$`),
    `must be an invite code (${INVITE_CODE_PREFIX}…) from an invite link`,
  );

const previewSchema = z.strictObject({ code: inviteCode });

const acceptSchema = z.discriminatedUnion("join", [
  /** Take the seat as the account this request is signed in to (the person said yes). */
  z.strictObject({ code: inviteCode, join: z.literal("signed-in") }),
  /** Take the seat as a new account, signed in at once in this browser. */
  z.strictObject({
    code: inviteCode,
    join: z.literal("new-account"),
    displayName: z.string().optional(),
  }),
]);

const seatIdOf = (params: unknown): string => {
  const id = uuidOrNull((params as { seatId: string }).seatId);
  if (id === null) throw seatNotFound();
  return id;
};

/**
 * Invites as seats (see domain/seats.ts): owners open, list, re-link and withdraw them; whoever
 * holds a link previews it and takes the seat, as a new account or as themselves.
 */
export function registerInviteRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const { db } = deps;
  const linkOf = (link: SeatLink) => ({
    code: link.code,
    path: link.path,
    url: publicLink(deps, link.path),
    expiresAt: link.expiresAt,
  });

  app.post("/v1/projects/:projectId/invites", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    const input = parseBody(addMemberSchema, request.body);
    const { seat, link } = await createSeat(db, membership, input);
    return reply.code(201).send({ seat, link: linkOf(link) });
  });

  app.get("/v1/projects/:projectId/invites", async (request) => {
    const membership = await membershipOf(deps, request);
    return { seats: await listSeats(db, membership) };
  });

  app.post("/v1/projects/:projectId/invites/:seatId/link", async (request) => {
    const membership = await membershipOf(deps, request);
    const { seat, link } = await reissueSeatLink(db, membership, seatIdOf(request.params));
    return { seat, link: linkOf(link) };
  });

  app.delete("/v1/projects/:projectId/invites/:seatId", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    await withdrawSeat(db, membership, seatIdOf(request.params));
    return reply.code(204).send();
  });

  const signedOutOk = { config: { optionalAuth: true } };

  app.post("/v1/invites/preview", signedOutOk, async (request) => {
    const { code } = parseBody(previewSchema, request.body);
    const seat = await previewSeat(db, code);
    return {
      project: { name: seat.projectName },
      salutation: seat.salutation,
      role: seat.role,
      expiresAt: seat.expiresAt,
      signedInAs: request.user === null ? null : { displayName: request.user.displayName },
    };
  });

  app.post("/v1/invites/accept", signedOutOk, async (request, reply) => {
    if (isForeignOrigin(request, deps.accounts.publicUrl)) throw originRefused();
    const input = parseBody(acceptSchema, request.body);
    if (input.join === "signed-in") {
      const user = request.user;
      if (user === null) {
        throw new ApiError(
          401,
          "unauthorized",
          "Sign in first to join as your account, or join as a new account.",
          { title: "Unauthorized" },
        );
      }
      const taken = await db.transaction().execute((trx) => takeSeat(trx, input.code, user.id));
      return { project: { id: taken.projectId } };
    }
    if (request.user !== null) {
      throw new ApiError(
        409,
        "signed_in_already",
        "This browser is signed in: join as that account, or sign out first to join as a new account.",
        { title: "Signed in already" },
      );
    }
    const seat = await previewSeat(db, input.code);
    const result = await db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, {
        email: null,
        displayName: input.displayName ?? seat.salutation,
      });
      const taken = await takeSeat(trx, input.code, user.id);
      const secret = await startBrowserSession(trx, user.id, request.headers["user-agent"]);
      return { user, taken, secret };
    });
    setSessionCookie(reply, deps, result.secret);
    return reply.code(201).send({
      user: { id: result.user.id, displayName: result.user.displayName },
      project: { id: result.taken.projectId },
    });
  });
}
