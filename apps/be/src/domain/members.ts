import type { Member } from "@talkide/be-api";
import type { RenderMember, RenderState } from "@talkide/renderer";
import { trimWhiteSpace } from "@talkide/text";
import type { Kysely } from "kysely";
import { z } from "zod";
import { ApiError } from "@talkide/service-kit";
import {
  buildRenderInput,
  checkRenderState,
  loadMembersWithUsers,
  type MemberWithUser,
} from "../context/render-state.ts";
import type { DatabaseSchema, MemberRole } from "../db/schema.ts";
import { notFound } from "../errors.ts";
import { blankIfInvisible, confusableSkeleton } from "./look-alikes.ts";
import type { Membership } from "./membership.ts";
import { isUniqueViolation } from "./users.ts";

export const memberInputSchema = z.strictObject({
  salutation: z.string(),
  teamBriefing: z.string().nullish(),
});

/** An invite: a seat's salutation, briefing and role, and an e-mail only as the owner's note. */
export const addMemberSchema = memberInputSchema.extend({
  /** A contact note for the owner's own list of pending invites; never used to find anyone. */
  email: z.email({ error: "must be an email address" }).max(320).nullish(),
  role: z.enum(["owner", "member"]).optional(),
});

export const updateMemberSchema = z
  .strictObject({
    salutation: z.string().optional(),
    teamBriefing: z.string().nullable().optional(),
    /** Owners only; the last owner keeps the role. */
    role: z.enum(["owner", "member"]).optional(),
  })
  .refine(
    (v) => v.salutation !== undefined || v.teamBriefing !== undefined || v.role !== undefined,
    { message: "send salutation, teamBriefing, role or any of them" },
  );

/** A roster entry as the API shows it (`@talkide/be-api`): never the member's email, name or phone. */
export type MemberView = Member;

/**
 * The salutation key the uniqueness constraint uses: NFC, trimmed, default (locale-free)
 * lower case, as the contract compares salutations.
 */
export function normalizeSalutationKey(salutation: string): string {
  return trimWhiteSpace(salutation.normalize("NFC")).toLowerCase();
}

/**
 * A member as the render state normalized them: what CLAUDE.md shows, and so what is stored
 * and echoed (one truth). `memberId` is one the state was built with, so it is there.
 */
export function renderedMember(state: RenderState, memberId: string): RenderMember {
  const member = state.team.find((m) => m.id === memberId);
  if (member === undefined) throw new Error(`the render state lost member ${memberId}`);
  return member;
}

/**
 * A roster entry as submitted, with an invisible value (only U+200B, U+FEFF, … and white
 * space) made blank, so the render state's blank rules apply to it.
 */
export function submittedMember(input: {
  readonly salutation: string;
  readonly teamBriefing: string | null;
}): { readonly salutation: string; readonly teamBriefing: string | null } {
  return {
    salutation: blankIfInvisible(input.salutation),
    teamBriefing: blankIfInvisible(input.teamBriefing),
  };
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

/**
 * A roster change as the project's event (migration 0015): every open console of the project
 * reloads its member list. Written in the change's own transaction, so it is there exactly when
 * the change is.
 */
export async function recordRosterEvent(
  trx: Kysely<DatabaseSchema>,
  projectId: number,
  type: "member.joined" | "member.left" | "member.changed",
  memberId: string,
): Promise<void> {
  await trx
    .insertInto("project_events")
    .values({ project_id: projectId, type, data: JSON.stringify({ memberId }) })
    .execute();
}

/** Whether someone besides `memberId` owns the project. */
export function hasOtherOwner(members: readonly MemberWithUser[], memberId: string): boolean {
  return members.some((m) => m.role === "owner" && m.id !== memberId);
}

export async function lockProject(trx: Kysely<DatabaseSchema>, projectId: number): Promise<void> {
  // Serializes roster changes of one project, so the state validated is the state written.
  await trx.selectFrom("projects").select("id").where("id", "=", projectId).forUpdate().execute();
}

const alreadyMember = (): ApiError =>
  new ApiError(
    409,
    "already_member",
    "This user is already a member of the project; edit their membership instead.",
    { title: "Already a member" },
  );

const salutationTaken = (): ApiError =>
  new ApiError(
    409,
    "salutation_taken",
    "Another member of this project already has this salutation, or one that looks the same " +
      "(compared ignoring case, invisible characters, and look-alike letters such as a Cyrillic " +
      '"а" for a Latin "a"); choose a different one.',
    { title: "Salutation already used in this project", extensions: { field: "salutation" } },
  );

/**
 * Refuses a salutation that looks like another member's (the same UTS #39 skeleton): Mara
 * could not tell whose briefing is whose. `others` excludes the member being changed.
 */
function refuseLookAlike(others: readonly MemberWithUser[], skeleton: string): void {
  if (others.some((m) => confusableSkeleton(m.salutation) === skeleton)) {
    throw salutationTaken();
  }
}

/** A unique violation of the roster as its stable 409; anything else is rethrown. */
export function rosterConflict(error: unknown): never {
  // The unique indexes hold what the checks decided even when two requests race.
  if (
    isUniqueViolation(error, "members_project_salutation_key") ||
    isUniqueViolation(error, "members_project_salutation_skeleton_key")
  ) {
    throw salutationTaken();
  }
  if (isUniqueViolation(error, "members_project_user_key")) throw alreadyMember();
  throw error;
}

/** The refusal every roster change by a plain member gets. */
export function requireOwner(membership: Membership): void {
  if (membership.role !== "owner") {
    throw new ApiError(403, "owner_required", "Ask an owner of this project to add the member.", {
      title: "Only an owner can add members",
    });
  }
}

/** What a new roster entry is made of: an invite's fields, or a seat's when it is taken. */
interface RosterEntryInput {
  readonly salutation: string;
  readonly teamBriefing?: string | null | undefined;
  readonly role?: MemberRole | undefined;
}

/** A roster entry that passed every rule, as the render state normalized it. */
export interface AdmittedMember {
  readonly salutation: string;
  readonly teamBriefing: string | null;
  readonly skeleton: string;
}

/**
 * Checks a would-be member against the project's current roster under the roster lock: the
 * render state must stay valid and the salutation must look like nobody's. `userId` null: a
 * seat not yet taken (who takes it is checked when they do).
 */
export async function admitMember(
  trx: Kysely<DatabaseSchema>,
  membership: Membership,
  userId: string | null,
  input: RosterEntryInput,
): Promise<AdmittedMember> {
  await lockProject(trx, membership.project.id);
  const members = await loadMembersWithUsers(trx, membership.project.id);
  if (userId !== null && members.some((m) => m.userId === userId)) throw alreadyMember();
  const candidate: MemberWithUser = {
    id: "candidate",
    createdAt: new Date().toISOString(),
    ...submittedMember({ salutation: input.salutation, teamBriefing: input.teamBriefing ?? null }),
    role: input.role ?? "member",
    userId: userId ?? "candidate",
    email: "",
    displayName: "",
    phone: null,
  };
  const state = checkRenderState(
    buildRenderInput(membership.project, [...members, candidate], membership.memberId),
  );
  // Stored as the render state normalized it, so the API echoes what CLAUDE.md shows.
  const { salutation, teamBriefing } = renderedMember(state, candidate.id);
  const skeleton = confusableSkeleton(salutation);
  refuseLookAlike(members, skeleton);
  return { salutation, teamBriefing, skeleton };
}

/**
 * Adds `userId` to the project inside the caller's transaction, under the project's roster
 * lock and the same rules as every roster change (the render state must stay valid);
 * returns the new member's id. Unique violations are left to `rosterConflict`.
 */
export async function insertMember(
  trx: Kysely<DatabaseSchema>,
  membership: Membership,
  userId: string,
  input: RosterEntryInput,
): Promise<string> {
  const { salutation, teamBriefing, skeleton } = await admitMember(trx, membership, userId, input);
  const row = await trx
    .insertInto("members")
    .values({
      project_id: membership.project.id,
      user_id: userId,
      role: input.role ?? "member",
      salutation,
      salutation_key: normalizeSalutationKey(salutation),
      salutation_skeleton: skeleton,
      team_briefing: teamBriefing,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

export const lastOwner = (): ApiError =>
  new ApiError(
    409,
    "last_owner",
    "A project needs an owner: make another member an owner first (Team tab, or PATCH the member's role).",
    { title: "The last owner stays" },
  );

/**
 * Changes a member's salutation, team briefing and/or role. Members edit their own entry;
 * owners may edit anyone's and change roles.
 */
export async function updateMember(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  memberId: string,
  patch: z.output<typeof updateMemberSchema>,
): Promise<MemberView> {
  if (memberId !== membership.memberId && membership.role !== "owner") {
    throw new ApiError(
      403,
      "owner_required",
      "You can edit your own salutation and briefing; ask an owner to change someone else's.",
      { title: "Only an owner can edit other members" },
    );
  }
  if (patch.role !== undefined && membership.role !== "owner") {
    throw new ApiError(403, "owner_required", "Ask an owner of this project to change roles.", {
      title: "Only an owner can change roles",
    });
  }
  const projectId = membership.project.id;
  try {
    await db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      const members = await loadMembersWithUsers(trx, projectId);
      const target = members.find((m) => m.id === memberId);
      if (target === undefined) throw notFound("member_not_found", "Member");
      const role = patch.role ?? target.role;
      if (role !== "owner" && target.role === "owner" && !hasOtherOwner(members, memberId)) {
        throw lastOwner();
      }
      const updated: MemberWithUser = {
        ...target,
        role,
        ...submittedMember({
          salutation: patch.salutation ?? target.salutation,
          teamBriefing: patch.teamBriefing === undefined ? target.teamBriefing : patch.teamBriefing,
        }),
      };
      const state = checkRenderState(
        buildRenderInput(
          membership.project,
          members.map((m) => (m.id === memberId ? updated : m)),
          membership.memberId,
        ),
      );
      const { salutation, teamBriefing } = renderedMember(state, memberId);
      const skeleton = confusableSkeleton(salutation);
      // Checked when the salutation changes (re-sending the same one, as a form does with a
      // new briefing, is no change): a member who already shares a look with another (rows
      // from before this rule, see migration 0009) can still edit their briefing, and must
      // choose a salutation that looks like nobody's the next time they change it.
      const renamed = salutation !== target.salutation;
      if (renamed) {
        refuseLookAlike(
          members.filter((m) => m.id !== memberId),
          skeleton,
        );
      }
      await trx
        .updateTable("members")
        .set({
          salutation,
          salutation_key: normalizeSalutationKey(salutation),
          ...(renamed ? { salutation_skeleton: skeleton } : {}),
          team_briefing: teamBriefing,
          role,
        })
        .where("id", "=", memberId)
        .where("project_id", "=", projectId)
        .execute();
      await recordRosterEvent(trx, projectId, "member.changed", memberId);
    });
  } catch (error) {
    rosterConflict(error);
  }
  const after = (await loadMembersWithUsers(db, projectId)).find((m) => m.id === memberId);
  if (after === undefined) throw notFound("member_not_found", "Member");
  return memberView(after, membership.memberId);
}
