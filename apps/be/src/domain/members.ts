import { trimWhiteSpace } from "@talkide/text";
import type { Kysely } from "kysely";
import { z } from "zod";
import {
  buildRenderInput,
  checkRenderState,
  loadMembersWithUsers,
  type MemberWithUser,
} from "../context/render-state.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { AppError, notFound } from "../errors.ts";
import type { Membership } from "./membership.ts";
import { findUserIdByEmail, isUniqueViolation } from "./users.ts";

export const memberInputSchema = z.strictObject({
  salutation: z.string(),
  teamBriefing: z.string().nullish(),
});

export const addMemberSchema = memberInputSchema.extend({
  /** Who to add: an existing user, found by email. The email is never echoed back. */
  email: z.email({ error: "must be an email address" }),
  role: z.enum(["owner", "member"]).optional(),
});

export const updateMemberSchema = z
  .strictObject({
    salutation: z.string().optional(),
    teamBriefing: z.string().nullable().optional(),
  })
  .refine((v) => v.salutation !== undefined || v.teamBriefing !== undefined, {
    message: "send salutation, teamBriefing or both",
  });

/** A roster entry as the API shows it: never the member's email, name or phone. */
export interface MemberView {
  readonly id: string;
  readonly salutation: string;
  readonly teamBriefing: string | null;
  readonly role: string;
  readonly createdAt: string;
  /** True for the caller's own membership. */
  readonly you: boolean;
}

/**
 * The salutation key the uniqueness constraint uses: NFC, trimmed, default (locale-free)
 * lower case, as the contract compares salutations.
 */
export function normalizeSalutationKey(salutation: string): string {
  return trimWhiteSpace(salutation.normalize("NFC")).toLowerCase();
}

export function memberView(member: MemberWithUser, callerMemberId: string): MemberView {
  return {
    id: member.id,
    salutation: member.salutation,
    teamBriefing: member.teamBriefing,
    role: member.role,
    createdAt: member.createdAt,
    you: member.id === callerMemberId,
  };
}

export async function listMembers(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
): Promise<MemberView[]> {
  const members = await loadMembersWithUsers(db, membership.project.id);
  return members.map((m) => memberView(m, membership.memberId));
}

async function lockProject(trx: Kysely<DatabaseSchema>, projectId: number): Promise<void> {
  // Serializes roster changes of one project, so the state validated is the state written.
  await trx.selectFrom("projects").select("id").where("id", "=", projectId).forUpdate().execute();
}

const alreadyMember = (): AppError =>
  new AppError(
    "already_member",
    409,
    "Already a member",
    "This user is already a member of the project; edit their membership instead.",
  );

function uniqueViolationToAppError(error: unknown): never {
  if (isUniqueViolation(error, "members_project_salutation_key")) {
    throw new AppError(
      "salutation_taken",
      409,
      "Salutation already used in this project",
      "Another member of this project already has this salutation (compared ignoring case); choose a different one.",
      { field: "salutation" },
    );
  }
  if (isUniqueViolation(error, "members_project_user_key")) throw alreadyMember();
  throw error;
}

/** Adds an existing user to the project. Only owners may add members. */
export async function addMember(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  input: z.output<typeof addMemberSchema>,
): Promise<MemberView> {
  if (membership.role !== "owner") {
    throw new AppError(
      "owner_required",
      403,
      "Only an owner can add members",
      "Ask an owner of this project to add the member.",
    );
  }
  const userId = await findUserIdByEmail(db, input.email);
  if (userId === null) {
    throw new AppError(
      "user_not_found",
      404,
      "User not found",
      "No user has this email; create the user first (talkide-be create-user).",
    );
  }
  const projectId = membership.project.id;
  try {
    const id = await db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      const members = await loadMembersWithUsers(trx, projectId);
      if (members.some((m) => m.userId === userId)) throw alreadyMember();
      const candidate: MemberWithUser = {
        id: "candidate",
        createdAt: new Date().toISOString(),
        salutation: input.salutation,
        teamBriefing: input.teamBriefing ?? null,
        role: input.role ?? "member",
        userId,
        email: "",
        displayName: "",
        phone: null,
      };
      checkRenderState(
        buildRenderInput(membership.project, [...members, candidate], membership.memberId),
      );
      const row = await trx
        .insertInto("members")
        .values({
          project_id: projectId,
          user_id: userId,
          role: input.role ?? "member",
          salutation: input.salutation,
          salutation_key: normalizeSalutationKey(input.salutation),
          team_briefing: input.teamBriefing ?? null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      return row.id;
    });
    const added = (await loadMembersWithUsers(db, projectId)).find((m) => m.id === id);
    if (added === undefined) throw notFound("member_not_found", "Member");
    return memberView(added, membership.memberId);
  } catch (error) {
    return uniqueViolationToAppError(error);
  }
}

/**
 * Changes a member's salutation and/or team briefing. Members edit their own entry; owners
 * may edit anyone's.
 */
export async function updateMember(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  memberId: string,
  patch: z.output<typeof updateMemberSchema>,
): Promise<MemberView> {
  if (memberId !== membership.memberId && membership.role !== "owner") {
    throw new AppError(
      "owner_required",
      403,
      "Only an owner can edit other members",
      "You can edit your own salutation and briefing; ask an owner to change someone else's.",
    );
  }
  const projectId = membership.project.id;
  try {
    await db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      const members = await loadMembersWithUsers(trx, projectId);
      const target = members.find((m) => m.id === memberId);
      if (target === undefined) throw notFound("member_not_found", "Member");
      const updated: MemberWithUser = {
        ...target,
        salutation: patch.salutation ?? target.salutation,
        teamBriefing: patch.teamBriefing === undefined ? target.teamBriefing : patch.teamBriefing,
      };
      checkRenderState(
        buildRenderInput(
          membership.project,
          members.map((m) => (m.id === memberId ? updated : m)),
          membership.memberId,
        ),
      );
      await trx
        .updateTable("members")
        .set({
          salutation: updated.salutation,
          salutation_key: normalizeSalutationKey(updated.salutation),
          team_briefing: updated.teamBriefing,
        })
        .where("id", "=", memberId)
        .where("project_id", "=", projectId)
        .execute();
    });
  } catch (error) {
    uniqueViolationToAppError(error);
  }
  const after = (await loadMembersWithUsers(db, projectId)).find((m) => m.id === memberId);
  if (after === undefined) throw notFound("member_not_found", "Member");
  return memberView(after, membership.memberId);
}
