import { sql, type Kysely } from "kysely";
import type { z } from "zod";
import { ApiError, generateToken, hashToken } from "@talkide/service-kit";
import { loadMembersWithUsers } from "../context/render-state.ts";
import { INVITE_CODE_PREFIX } from "../auth/tokens.ts";
import type { DatabaseSchema, MemberRole } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";
import { notFound } from "../errors.ts";
import {
  admitMember,
  insertMember,
  recordRosterEvent,
  requireOwner,
  rosterConflict,
  type addMemberSchema,
} from "./members.ts";
import { requireMembership, type Membership } from "./membership.ts";

/**
 * An invite is a seat, not an e-mail lookup (issue 48): a pending place in one project with
 * its role, salutation and briefing, and a one-time link. Nobody is added to a project until
 * someone redeems that project's link, as a new account or, after an explicit yes, as the
 * account they are signed in to. The e-mail an owner may note is a label for their own list:
 * no account is ever looked up by it, so inviting reveals nothing about who has an account.
 */
export const SEAT_LINK_LIFETIME_HOURS = 7 * 24;

export interface SeatView {
  readonly id: string;
  readonly salutation: string;
  readonly teamBriefing: string | null;
  readonly role: MemberRole;
  /** The owner's contact note (the e-mail they typed), shown to owners only. */
  readonly email: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export interface SeatLink {
  /** `tkiv_…`, shown once; only its sha256 is stored. */
  readonly code: string;
  /** The console's path that redeems it: `/#invite=tkiv_…`. */
  readonly path: string;
  readonly expiresAt: string;
}

export function invitePath(code: string): string {
  return `/#invite=${code}`;
}

type SeatRow = {
  id: string;
  salutation: string;
  team_briefing: string | null;
  role: MemberRole;
  contact: string | null;
  created_at: string;
  expires_at: string;
};

function seatView(row: SeatRow): SeatView {
  return {
    id: row.id,
    salutation: row.salutation,
    teamBriefing: row.team_briefing,
    role: row.role,
    email: row.contact,
    createdAt: toRfc3339(row.created_at),
    expiresAt: toRfc3339(row.expires_at),
  };
}

const linkExpiry = sql<string>`clock_timestamp() + make_interval(hours => ${SEAT_LINK_LIFETIME_HOURS})`;

/** An owner opens a seat: checked against the roster now (and again when it is taken). */
export async function createSeat(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  input: z.output<typeof addMemberSchema>,
): Promise<{ seat: SeatView; link: SeatLink }> {
  requireOwner(membership);
  const code = generateToken(INVITE_CODE_PREFIX);
  try {
    const row = await db.transaction().execute(async (trx) => {
      const admitted = await admitMember(trx, membership, null, input);
      return trx
        .insertInto("seats")
        .values({
          project_id: membership.project.id,
          role: input.role ?? "member",
          salutation: admitted.salutation,
          team_briefing: admitted.teamBriefing,
          contact: input.email ?? null,
          code_sha256: hashToken(code),
          expires_at: linkExpiry,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    const seat = seatView(row);
    return { seat, link: { code, path: invitePath(code), expiresAt: seat.expiresAt } };
  } catch (error) {
    return rosterConflict(error);
  }
}

const pendingSeats = (db: Kysely<DatabaseSchema>, projectId: number) =>
  db
    .selectFrom("seats")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("redeemed_at", "is", null)
    .where("withdrawn_at", "is", null);

/** The project's seats nobody took yet (expired ones too: an owner may give them a new link). */
export async function listSeats(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
): Promise<SeatView[]> {
  requireOwner(membership);
  const rows = await pendingSeats(db, membership.project.id)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(seatView);
}

/** A new link for a pending seat; the old link stops working at once. */
export async function reissueSeatLink(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  seatId: string,
): Promise<{ seat: SeatView; link: SeatLink }> {
  requireOwner(membership);
  const code = generateToken(INVITE_CODE_PREFIX);
  const row = await db
    .updateTable("seats")
    .set({ code_sha256: hashToken(code), expires_at: linkExpiry })
    .where("id", "=", seatId)
    .where("project_id", "=", membership.project.id)
    .where("redeemed_at", "is", null)
    .where("withdrawn_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  if (row === undefined) throw seatNotFound();
  const seat = seatView(row);
  return { seat, link: { code, path: invitePath(code), expiresAt: seat.expiresAt } };
}

/** Withdraws a pending seat: its link stops working. */
export async function withdrawSeat(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  seatId: string,
): Promise<void> {
  requireOwner(membership);
  const row = await db
    .updateTable("seats")
    .set({ withdrawn_at: sql<string>`clock_timestamp()`, contact: null })
    .where("id", "=", seatId)
    .where("project_id", "=", membership.project.id)
    .where("redeemed_at", "is", null)
    .where("withdrawn_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  if (row === undefined) throw seatNotFound();
}

export const seatNotFound = (): ApiError =>
  new ApiError(404, "invite_not_found", "This project has no pending invite with this id.", {
    title: "No such invite",
  });

export interface SeatPreview {
  readonly projectId: number;
  readonly projectName: string;
  readonly salutation: string;
  readonly role: MemberRole;
  readonly expiresAt: string;
}

/** What a still-valid link offers, without spending it (the console asks before joining). */
export async function previewSeat(db: Kysely<DatabaseSchema>, code: string): Promise<SeatPreview> {
  const row = await db
    .selectFrom("seats")
    .innerJoin("projects", "projects.id", "seats.project_id")
    .select([
      "seats.project_id",
      "projects.name",
      "seats.salutation",
      "seats.role",
      "seats.expires_at",
      "seats.redeemed_at",
      "seats.withdrawn_at",
    ])
    .where("seats.code_sha256", "=", hashToken(code))
    .executeTakeFirst();
  if (row === undefined) throw inviteRefused("invite_invalid");
  if (row.redeemed_at !== null) throw inviteRefused("invite_used");
  if (row.withdrawn_at !== null) throw inviteRefused("invite_withdrawn");
  if (Date.parse(toRfc3339(row.expires_at)) <= Date.now()) throw inviteRefused("invite_expired");
  return {
    projectId: row.project_id,
    projectName: row.name,
    salutation: row.salutation,
    role: row.role,
    expiresAt: toRfc3339(row.expires_at),
  };
}

const INVITE_REFUSALS = {
  invite_invalid:
    "This invite link is not valid: it was copied incompletely, or the owner replaced it with a new one. Ask the project's owner for a new link.",
  invite_used:
    "This invite link was already used; each works once. Ask the project's owner for a new invite.",
  invite_withdrawn: "The project's owner withdrew this invite.",
  invite_expired: `This invite link expired (links work for ${SEAT_LINK_LIFETIME_HOURS / 24} days). Ask the project's owner for a new link.`,
} as const;

function inviteRefused(code: keyof typeof INVITE_REFUSALS): ApiError {
  return new ApiError(401, code, INVITE_REFUSALS[code], { title: "Invite link not valid" });
}

/**
 * Takes the seat for `userId` in the caller's transaction: spends the link (one conditional
 * UPDATE, so two redemptions cannot both succeed) and adds the member under every roster rule.
 * A refusal (already a member, a salutation someone took meanwhile) rolls everything back: the
 * link still works, for the right person or after the owner changes the seat.
 */
export async function takeSeat(
  trx: Kysely<DatabaseSchema>,
  code: string,
  userId: string,
): Promise<{ projectId: number; memberId: string }> {
  const seat = await trx
    .updateTable("seats")
    // The owner's contact note was for finding the person; once they are here it goes.
    .set({ redeemed_at: sql<string>`clock_timestamp()`, contact: null })
    .where("code_sha256", "=", hashToken(code))
    .where("redeemed_at", "is", null)
    .where("withdrawn_at", "is", null)
    .where("expires_at", ">", sql<string>`clock_timestamp()`)
    .returningAll()
    .executeTakeFirst();
  if (seat === undefined) {
    await previewSeat(trx, code);
    throw inviteRefused("invite_invalid");
  }
  const viewpoint = await operatorMembership(trx, seat.project_id);
  try {
    const memberId = await insertMember(trx, viewpoint, userId, {
      salutation: seat.salutation,
      teamBriefing: seat.team_briefing,
      role: seat.role,
    });
    await trx.updateTable("seats").set({ member_id: memberId }).where("id", "=", seat.id).execute();
    await recordRosterEvent(trx, seat.project_id, "member.joined", memberId);
    return { projectId: seat.project_id, memberId };
  } catch (error) {
    return rosterConflict(error);
  }
}

/**
 * The membership the operator (admin token, CLI) acts through, and the viewpoint a seat is
 * taken under: the project's first current owner. An unknown project is `project_not_found`.
 */
export async function operatorMembership(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<Membership> {
  const owner = (await loadMembersWithUsers(db, projectId)).find((m) => m.role === "owner");
  if (owner === undefined) throw notFound("project_not_found", "Project");
  return requireMembership(db, projectId, owner.userId);
}
