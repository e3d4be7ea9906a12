/**
 * One-time sign-in codes (`tksi_…`), which an owner's invite puts in a link of the same form
 * as the banner's: `<origin>/#token=<value>`. A code is exchanged once for an API token
 * (POST /v1/sign-in); any other value already is an API token. The sign-in form takes either.
 */
const SIGN_IN_CODE_PREFIX = "tksi_";

export function isSignInCode(value: string): boolean {
  return value.startsWith(SIGN_IN_CODE_PREFIX);
}

/** The API token to sign in with: a code is exchanged (once) through `exchange`. */
export async function apiTokenFor(
  value: string,
  exchange: (code: string) => Promise<string>,
): Promise<string> {
  return isSignInCode(value) ? exchange(value) : value;
}

/** The absolute link to pass on, from the invite's `signIn.path` (`/#token=tksi_…`). */
export function signInUrl(origin: string, path: string): string {
  return new URL(path, origin).href;
}
