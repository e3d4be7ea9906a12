/*
 * The prefixes of this service's secrets (made by service-kit's `generateToken`, stored as its
 * `hashToken`): they make a leaked one easy to recognize and scan for.
 */
/** API tokens (see api-tokens.ts). */
export const API_TOKEN_PREFIX = "tkbe_";
/** One-time sign-in codes for an account (see sign-in-codes.ts). */
export const SIGN_IN_CODE_PREFIX = "tksi_";
/** One-time codes of an invite's link (see domain/seats.ts). */
export const INVITE_CODE_PREFIX = "tkiv_";

/**
 * Whether a bearer token has the alphabet and length of every token this service issues (a
 * prefix and base64url): one that does not is unknown without a lookup.
 */
export function isTokenShaped(token: string): boolean {
  return /^[A-Za-z0-9_-]{1,200}$/.test(token);
}

/** A uuid path parameter, or null: anything else names nothing and must not reach a uuid cast. */
export function uuidOrNull(value: string): string | null {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
    ? value.toLowerCase()
    : null;
}
