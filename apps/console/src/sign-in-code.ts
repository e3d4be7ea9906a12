/**
 * What the sign-in form's one field takes: a one-time sign-in code (`tksi_…`, from a sign-in
 * link) or an API token (`tkbe_…`), which `POST /v1/sign-in` turns into this browser's session.
 */
const SIGN_IN_CODE_PREFIX = "tksi_";
const API_TOKEN_PREFIX = "tkbe_";

export type SignInCredential = { readonly code: string } | { readonly token: string };

/** The body of `POST /v1/sign-in` for what was pasted; null when it is neither kind. */
export function signInCredentialOf(value: string): SignInCredential | null {
  const trimmed = value.trim();
  if (trimmed.startsWith(SIGN_IN_CODE_PREFIX)) return { code: trimmed };
  if (trimmed.startsWith(API_TOKEN_PREFIX)) return { token: trimmed };
  return null;
}

export const NOT_A_CREDENTIAL = `Paste a sign-in code (it starts with ${SIGN_IN_CODE_PREFIX}) or an API token (it starts with ${API_TOKEN_PREFIX}).`;
