import { sql, type Kysely } from "kysely";
import { ApiError, generateToken, hashToken } from "@talkide/service-kit";
import type { DatabaseSchema } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";
import { SIGN_IN_CODE_PREFIX } from "./tokens.ts";

/**
 * A one-time sign-in code for an existing account: what the start banner and the operator's
 * `talkide-be sign-in-link` hand out. Long enough to use the same day, short enough that a link
 * found later in a chat history or a browser's history is dead (and a used one is dead at once).
 */
export const SIGN_IN_CODE_LIFETIME_HOURS = 24;

export interface SignInCode {
  /** `tksi_…`, shown once; only its sha256 is stored. */
  readonly code: string;
  /** The console's address path that redeems it: `/#code=tksi_…`. */
  readonly path: string;
  readonly expiresAt: string;
}

/** A sign-in link's address path: a fragment, which browsers never send to a server. */
export function signInPath(code: string): string {
  return `/#code=${code}`;
}

/** Issues a one-time code for `userId`, valid for SIGN_IN_CODE_LIFETIME_HOURS. */
export async function issueSignInCode(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<SignInCode> {
  const code = generateToken(SIGN_IN_CODE_PREFIX);
  const row = await db
    .insertInto("sign_in_codes")
    .values({
      user_id: userId,
      code_sha256: hashToken(code),
      expires_at: sql<string>`clock_timestamp() + make_interval(hours => ${SIGN_IN_CODE_LIFETIME_HOURS})`,
    })
    .returning("expires_at")
    .executeTakeFirstOrThrow();
  return { code, path: signInPath(code), expiresAt: toRfc3339(row.expires_at) };
}

const refused = (code: string, detail: string): ApiError =>
  new ApiError(401, code, detail, { title: "Sign-in link not valid" });

/** The account a still-valid code signs in to, without spending it (the console asks first). */
export async function previewSignInCode(
  db: Kysely<DatabaseSchema>,
  code: string,
): Promise<{ readonly userId: string; readonly displayName: string; readonly expiresAt: string }> {
  const codeSha256 = hashToken(code);
  const row = await db
    .selectFrom("sign_in_codes")
    .innerJoin("users", "users.id", "sign_in_codes.user_id")
    .select(["users.id as user_id", "users.display_name", "sign_in_codes.expires_at"])
    .where("code_sha256", "=", codeSha256)
    .where("used_at", "is", null)
    .where("expires_at", ">", sql<string>`clock_timestamp()`)
    .executeTakeFirst();
  if (row === undefined) throw await whyRefused(db, codeSha256);
  return {
    userId: row.user_id,
    displayName: row.display_name,
    expiresAt: toRfc3339(row.expires_at),
  };
}

/**
 * Spends a code and returns its user's id. One conditional UPDATE spends it, so two
 * simultaneous redemptions cannot both succeed. Runs in the caller's transaction, so a
 * sign-in that fails after this (say, the browser session cannot be written) spends nothing.
 */
export async function spendSignInCode(db: Kysely<DatabaseSchema>, code: string): Promise<string> {
  const codeSha256 = hashToken(code);
  const spent = await db
    .updateTable("sign_in_codes")
    .set({ used_at: sql<string>`clock_timestamp()` })
    .where("code_sha256", "=", codeSha256)
    .where("used_at", "is", null)
    .where("expires_at", ">", sql<string>`clock_timestamp()`)
    .returning("user_id")
    .executeTakeFirst();
  if (spent === undefined) throw await whyRefused(db, codeSha256);
  return spent.user_id;
}

async function whyRefused(db: Kysely<DatabaseSchema>, codeSha256: string): Promise<ApiError> {
  const row = await db
    .selectFrom("sign_in_codes")
    .select("used_at")
    .where("code_sha256", "=", codeSha256)
    .executeTakeFirst();
  const askAgain = "Ask for a new sign-in link (an operator runs `npx talkide-be sign-in-link`).";
  if (row === undefined) {
    return refused(
      "sign_in_code_invalid",
      `This sign-in link is not valid (check that it was copied whole). ${askAgain}`,
    );
  }
  if (row.used_at !== null) {
    return refused(
      "sign_in_code_used",
      `This sign-in link was already used; each works once. ${askAgain}`,
    );
  }
  return refused(
    "sign_in_code_expired",
    `This sign-in link expired (links work for ${SIGN_IN_CODE_LIFETIME_HOURS} hours). ${askAgain}`,
  );
}
