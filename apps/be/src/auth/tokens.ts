import { createHash, randomBytes } from "node:crypto";

const TOKEN_PREFIX = "tkbe_";
/** One-time sign-in codes for an account (see sign-in-codes.ts). */
export const SIGN_IN_CODE_PREFIX = "tksi_";
/** One-time codes of an invite's link (see domain/seats.ts). */
export const INVITE_CODE_PREFIX = "tkiv_";

/** 256 random bits, URL-safe; the prefix makes a leaked token easy to recognize and scan for. */
export function generateToken(prefix: string = TOKEN_PREFIX): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * Tokens (and sign-in codes) have 256 bits of entropy, so a plain sha256 is enough to store them: there is
 * nothing to brute-force, and a fast hash keeps the per-request lookup cheap.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** `Authorization: Bearer <token>` → the token, or null when the header is absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer[ ]+([A-Za-z0-9_-]{1,200})\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** A uuid path parameter, or null: anything else names nothing and must not reach a uuid cast. */
export function uuidOrNull(value: string): string | null {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
    ? value.toLowerCase()
    : null;
}
