import type { Invite } from "@talkide/be-api";
import { trimWhiteSpace } from "@talkide/text";
import type { Kysely } from "kysely";
import type { z } from "zod";
import { issueSignInCode, type SignInCode } from "../auth/sign-in-codes.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { notFound } from "../errors.ts";
import {
  insertMember,
  memberViewOf,
  requireOwner,
  rosterConflict,
  type addMemberSchema,
  type MemberView,
} from "./members.ts";
import { requireMembership, type Membership } from "./membership.ts";
import { isInvisible } from "./look-alikes.ts";
import { findUserIdByEmail, insertUser, isUniqueViolation } from "./users.ts";

/** The API's Invite (`@talkide/be-api`), and whether the person was added now. */
export interface InviteResult extends Invite {
  readonly member: MemberView;
  /**
   * The one-time sign-in link to pass on; null when the e-mail already belonged to an account
   * that someone signs in to (a link would let the inviter into that person's account).
   */
  readonly signIn: SignInCode | null;
  /** False when the person was already a member and only got a fresh link (see below). */
  readonly added: boolean;
}

export interface InviteOptions {
  /**
   * The machine's operator (the CLI with the admin token) may already issue tokens for any
   * user, so an invite by the operator always comes with a link.
   */
  readonly byOperator: boolean;
}

/**
 * Brings a person into a project by e-mail: creates their account when there is none (its
 * display name is the salutation), adds them as a member under the same rules and errors as
 * `POST /members`, and issues a one-time sign-in link for an account the invite created.
 * Re-inviting a member who has never signed in (no API token, no other project: an earlier
 * invite's link was lost or expired) issues a fresh link and spends the old ones; any other
 * existing membership is 409 `already_member`. All of it is one transaction.
 */
export async function inviteMember(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  input: z.output<typeof addMemberSchema>,
  options: InviteOptions,
): Promise<InviteResult> {
  try {
    return await inviteOnce(db, membership, input, options);
  } catch (error) {
    // Two invites of one new e-mail at once: the other request created the account between
    // this one's lookup and its insert. Once more, the lookup finds it and the rules for an
    // existing account apply (a member already, or added without a link).
    if (!isUniqueViolation(error, "users_email_key_key")) throw error;
    return inviteOnce(db, membership, input, options);
  }
}

async function inviteOnce(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  input: z.output<typeof addMemberSchema>,
  options: InviteOptions,
): Promise<InviteResult> {
  requireOwner(membership);
  const projectId = membership.project.id;
  try {
    const outcome = await db.transaction().execute(async (trx) => {
      const existingId = await findUserIdByEmail(trx, input.email);
      if (existingId !== null) {
        const existing = { id: existingId };
        const pendingMember = await pendingMembership(trx, existing.id, projectId);
        if (pendingMember !== null) {
          await trx
            .updateTable("sign_in_codes")
            .set({ expires_at: new Date(0).toISOString() })
            .where("user_id", "=", existing.id)
            .where("used_at", "is", null)
            .execute();
          return {
            memberId: pendingMember,
            signIn: await issueSignInCode(trx, existing.id),
            added: false,
          };
        }
        const memberId = await insertMember(trx, membership, existing.id, input);
        const signIn = options.byOperator ? await issueSignInCode(trx, existing.id) : null;
        return { memberId, signIn, added: true };
      }
      const user = await insertUser(trx, {
        email: input.email,
        displayName: displayNameFor(input.salutation, input.email),
      });
      const memberId = await insertMember(trx, membership, user.id, input);
      return { memberId, signIn: await issueSignInCode(trx, user.id), added: true };
    });
    return {
      member: await memberViewOf(db, membership, outcome.memberId),
      signIn: outcome.signIn,
      added: outcome.added,
    };
  } catch (error) {
    return rosterConflict(error);
  }
}

/** The display name of an account an invite creates: the salutation (the e-mail if blank). */
function displayNameFor(salutation: string, email: string): string {
  // Invisible (U+200B, U+FEFF, … only) counts as blank, as the user's display name rule says.
  return (isInvisible(salutation) ? email : trimWhiteSpace(salutation)).slice(0, 200);
}

/**
 * The member id when `userId` is a member of this project who has never signed in: no API
 * token and no other project. Only then may a fresh link go to the inviter.
 */
async function pendingMembership(
  db: Kysely<DatabaseSchema>,
  userId: string,
  projectId: number,
): Promise<string | null> {
  const memberships = await db
    .selectFrom("members")
    .select(["id", "project_id"])
    .where("user_id", "=", userId)
    .execute();
  const here = memberships.find((m) => m.project_id === projectId);
  if (here === undefined || memberships.length !== 1) return null;
  const token = await db
    .selectFrom("api_tokens")
    .select("id")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return token === undefined ? here.id : null;
}

/**
 * The membership the operator (admin token, CLI) acts through: the project's first owner,
 * whose view the roster is checked in. An unknown project is `project_not_found`.
 */
export async function operatorMembership(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<Membership> {
  const owner = await db
    .selectFrom("members")
    .select("user_id")
    .where("project_id", "=", projectId)
    .where("role", "=", "owner")
    .orderBy("created_at")
    .executeTakeFirst();
  if (owner === undefined) throw notFound("project_not_found", "Project");
  return requireMembership(db, projectId, owner.user_id);
}
