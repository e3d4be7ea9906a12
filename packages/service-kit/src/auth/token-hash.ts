import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * A new secret token: 256 random bits, base64url, after a prefix that makes a leaked one easy
 * to recognize and scan for (`tkbe_` the backend's API tokens, `tkd_` the daemon's, `thk_` the
 * hub's member tokens, `tkad_`/`tha_` admin tokens).
 */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * What every service stores of a token (or one-time code) instead of the token: the sha256 of
 * its UTF-8 bytes, as lower-case hex. The tokens carry 256 bits, so there is nothing to
 * brute-force and a fast hash keeps the per-request lookup cheap. The three services have
 * always stored exactly this: changing the algorithm or the encoding would make every stored
 * row (tokens, sessions, sign-in and invite codes) unknown.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * Whether a secret someone sent is the expected one, in a time that tells nothing about
 * either: their hashes (always 32 bytes) are compared in constant time, so neither the
 * expected secret's bytes nor its length leak.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(
    createHash("sha256").update(given, "utf8").digest(),
    createHash("sha256").update(expected, "utf8").digest(),
  );
}
