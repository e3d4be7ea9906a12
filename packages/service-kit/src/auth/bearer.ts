import type { FastifyReply } from "fastify";
import { ApiError, type ApiErrorDetails } from "../http/api-error.ts";

/** What an `Authorization` header holds, as far as bearer authentication is concerned. */
export type BearerCredential =
  /** No header, or an empty one. */
  | { readonly kind: "none" }
  /** Something other than `Bearer <token>` (another scheme, no token, two words). */
  | { readonly kind: "malformed" }
  | { readonly kind: "token"; readonly token: string };

/**
 * What may stand between `Bearer` and the token: `spaces` as RFC 6750 writes it (the
 * backend), or any `whitespace`, a tab too (the daemon and the hub have accepted that since
 * their first release, and a script may rely on it).
 */
export type BearerSeparator = "spaces" | "whitespace";

const SYNTAX: Record<BearerSeparator, RegExp> = {
  spaces: /^Bearer[ ]+(\S+)\s*$/i,
  whitespace: /^Bearer\s+(\S+)\s*$/i,
};

/** Reads `Authorization: Bearer <token>` (the scheme in any case); the token is never checked here. */
export function readBearer(
  header: string | undefined,
  separator: BearerSeparator,
): BearerCredential {
  if (header === undefined || header === "") return { kind: "none" };
  const token = SYNTAX[separator].exec(header)?.[1];
  return token === undefined ? { kind: "malformed" } : { kind: "token", token };
}

/** RFC 6750's `error` of a challenge: the header was not bearer syntax, or its token is bad. */
export type BearerError = "invalid_request" | "invalid_token";

/** `WWW-Authenticate: Bearer realm="…"`, with the RFC 6750 error when a credential was sent. */
export function bearerChallenge(realm: string, error?: BearerError): string {
  return error === undefined
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="${error}"`;
}

/**
 * A 401 refusal of a bearer-authenticated route: sets the challenge on the reply (a 401 must
 * carry one) and returns the error, which the route's hook throws or sends in the service's
 * error shape.
 */
export function bearerRefusal(
  reply: FastifyReply,
  challenge: { readonly realm: string; readonly error?: BearerError },
  code: string,
  message: string,
  details?: ApiErrorDetails,
): ApiError {
  void reply.header("www-authenticate", bearerChallenge(challenge.realm, challenge.error));
  return new ApiError(401, code, message, details);
}
