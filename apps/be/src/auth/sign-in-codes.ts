import { sql, type Kysely } from "kysely";
import { ApiError } from "@talkide/service-kit";
import type { DatabaseSchema } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";
import { generateToken, hashToken, SIGN_IN_CODE_PREFIX } from "./tokens.ts";

/**
 * How long an invite's sign-in link works: long enough to pass it on the same day, short
 * enough that a link found later in a chat history is dead.
 */
export const SIGN_IN_CODE_LIFETIME_HOURS = 24;

export interface SignInCode {
  /** `tksi_…`, shown once; only its sha256 is stored. */
  readonly code: string;
  /** The console's address path that redeems it: `/#token=tksi_…` (one URL form for every link). */
  readonly path: string;
  readonly expiresAt: string;
}

/** A sign-in link's address path: the same `#token=` fragment the banner's demo link uses. */
export function signInPath(value: string): string {
  return `/#token=${value}`;
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

/**
 * Exchanges a code for a new API token of its user. The code is spent by one conditional
 * UPDATE, so two simultaneous redemptions cannot both succeed.
 */
export async function redeemSignInCode(db: Kysely<DatabaseSchema>, code: string): Promise<string> {
  const codeSha256 = hashToken(code);
  return db.transaction().execute(async (trx) => {
    const spent = await trx
      .updateTable("sign_in_codes")
      .set({ used_at: sql<string>`clock_timestamp()` })
      .where("code_sha256", "=", codeSha256)
      .where("used_at", "is", null)
      .where("expires_at", ">", sql<string>`clock_timestamp()`)
      .returning("user_id")
      .executeTakeFirst();
    if (spent === undefined) throw await whyRefused(trx, codeSha256);
    const token = generateToken();
    await trx
      .insertInto("api_tokens")
      .values({ user_id: spent.user_id, token_sha256: hashToken(token) })
      .execute();
    return token;
  });
}

async function whyRefused(db: Kysely<DatabaseSchema>, codeSha256: string): Promise<ApiError> {
  const row = await db
    .selectFrom("sign_in_codes")
    .select("used_at")
    .where("code_sha256", "=", codeSha256)
    .executeTakeFirst();
  const askAgain = "Ask the project's owner to invite you again for a new link.";
  if (row === undefined) {
    return refused(
      "sign_in_code_invalid",
      `This sign-in link is not valid (check that it was copied whole). ${askAgain}`,
    );
  }
  if (row.used_at !== null) {
    return refused(
      "sign_in_code_used",
      `This sign-in link was already used; each works once. Sign in with the API token you got then, or: ${askAgain}`,
    );
  }
  return refused(
    "sign_in_code_expired",
    `This sign-in link expired (links work for ${SIGN_IN_CODE_LIFETIME_HOURS} hours). ${askAgain}`,
  );
}
