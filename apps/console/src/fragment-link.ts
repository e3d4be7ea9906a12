/**
 * The links the console accepts carry their one-time code in the address's fragment, which
 * browsers never send to a server (no access log or proxy sees it):
 * - `/#code=tksi_…`: an account's sign-in link;
 * - `/#invite=tkiv_…`: a seat on a project's team.
 * A `#token=…` link (an API token in the address) is no longer accepted: it is recognised
 * only to be removed and refused, since a token in a URL ends up in history and chats.
 */
export type FragmentLink =
  | { readonly kind: "sign-in"; readonly code: string }
  | { readonly kind: "invite"; readonly code: string }
  | { readonly kind: "refused-token" };

/** A link the console acts on (a refused token link only leaves a notice). */
export type ActionableLink = Exclude<FragmentLink, { readonly kind: "refused-token" }>;

/** What a refused `#token=` link tells the person. */
export const TOKEN_LINK_REFUSED =
  "Links that carry API tokens are no longer accepted. Ask for a new sign-in link.";

const LINK_KEYS = ["code", "invite", "token"] as const;

/**
 * Reads a link from the fragment and removes the fragment from the address bar and the
 * history entry at once (before any request), so it is not bookmarked, shared or left in
 * history. A fragment that is no link of ours (`#section`) is left alone; null then, and for
 * a link whose value is empty.
 */
export function takeLinkFromFragment(location: Location, history: History): FragmentLink | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const key = LINK_KEYS.find((name) => fragment.has(name));
  if (key === undefined) return null;
  history.replaceState(history.state, "", `${location.pathname}${location.search}`);
  if (key === "token") return { kind: "refused-token" };
  const code = (fragment.get(key) ?? "").trim();
  if (code === "") return null;
  return key === "code" ? { kind: "sign-in", code } : { kind: "invite", code };
}
