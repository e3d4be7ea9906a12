import { trimWhiteSpace } from "@talkide/text";
import type { Kysely } from "kysely";
import { z } from "zod";
import { ApiError } from "@talkide/service-kit";
import { DEFAULT_TOKEN_LIFETIME_DAYS, issueApiToken } from "../auth/api-tokens.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";
import { isInvisible } from "./look-alikes.ts";

export interface User {
  readonly id: string;
  /** Null for an account made by taking an invite's seat. */
  readonly email: string | null;
  readonly displayName: string;
  readonly phone: string | null;
  readonly createdAt: string;
}

export const newUserSchema = z.object({
  email: z
    .email({ error: "must be an email address" })
    .max(320)
    .nullish()
    .transform((v) => v ?? null),
  displayName: z
    .string()
    .overwrite(trimWhiteSpace)
    .min(1, "must not be blank")
    // Only U+200B, U+FEFF and the like: nothing anyone could read.
    .refine((name) => !isInvisible(name), "must not be blank")
    .max(200, "must be at most 200 characters"),
  phone: z
    .string()
    .overwrite(trimWhiteSpace)
    .regex(
      /^\+?[0-9][0-9 ()-]{2,31}$/,
      "must be a phone number (digits, spaces, +, -, parentheses)",
    )
    .nullish()
    .transform((v) => v ?? null),
});

export type NewUser = z.input<typeof newUserSchema>;

const emailKey = (email: string): string => trimWhiteSpace(email.normalize("NFC")).toLowerCase();

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  return (
    e.code === "23505" &&
    (e.constraint === constraint ||
      (typeof e.message === "string" && e.message.includes(constraint)))
  );
}

export { isUniqueViolation };

/** Checks a new user's fields; the error names the field, never its value. */
export function validateNewUser(input: NewUser): z.output<typeof newUserSchema> {
  const parsed = newUserSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError(
    400,
    "invalid_user",
    `The user's ${String(issue?.path[0] ?? "data")} ${issue?.message ?? "is invalid"}.`,
    { title: "Invalid user" },
  );
}

/**
 * Creates a user with one API token (named `tokenName`, for the default lifetime); the token is
 * returned here and nowhere else, ever.
 */
export async function createUser(
  db: Kysely<DatabaseSchema>,
  input: NewUser,
  tokenName = "first token",
): Promise<{ user: User; token: string }> {
  try {
    return await db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, input);
      const { secret } = await issueApiToken(trx, user.id, {
        name: tokenName,
        lifetimeDays: DEFAULT_TOKEN_LIFETIME_DAYS,
      });
      return { user, token: secret };
    });
  } catch (error) {
    if (isUniqueViolation(error, "users_email_key_key")) throw emailTaken();
    throw error;
  }
}

const emailTaken = (): ApiError =>
  new ApiError(
    409,
    "email_taken",
    "A user with this email already exists; `npx talkide-be create-token --email <email>` gives them a new token.",
    { title: "Email already registered" },
  );

/** Inserts a user without any token (an invite's sign-in link gives them one later). */
export async function insertUser(db: Kysely<DatabaseSchema>, input: NewUser): Promise<User> {
  const { email, displayName, phone } = validateNewUser(input);
  const row = await db
    .insertInto("users")
    .values({
      email: email === null ? null : trimWhiteSpace(email),
      email_key: email === null ? null : emailKey(email),
      display_name: displayName,
      phone,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toUser(row);
}

/** Issues an additional token for an existing user (e.g. when the first one was lost). */
export async function createToken(
  db: Kysely<DatabaseSchema>,
  email: string,
  name = "issued by the operator",
): Promise<string> {
  const userId = await findUserIdByEmail(db, email);
  if (userId === null) throw userNotFound();
  const { secret } = await issueApiToken(db, userId, {
    name,
    lifetimeDays: DEFAULT_TOKEN_LIFETIME_DAYS,
  });
  return secret;
}

export const userNotFound = (): ApiError =>
  new ApiError(404, "user_not_found", "No user has this email.", { title: "User not found" });

export async function findUserById(db: Kysely<DatabaseSchema>, id: string): Promise<User | null> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  return row === undefined ? null : toUser(row);
}

export async function findUserIdByEmail(
  db: Kysely<DatabaseSchema>,
  email: string,
): Promise<string | null> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("email_key", "=", emailKey(email))
    .executeTakeFirst();
  return row?.id ?? null;
}

export async function countUsers(db: Kysely<DatabaseSchema>): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function toUser(row: {
  id: string;
  email: string | null;
  display_name: string;
  phone: string | null;
  created_at: string;
}): User {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    phone: row.phone,
    createdAt: toRfc3339(row.created_at),
  };
}
