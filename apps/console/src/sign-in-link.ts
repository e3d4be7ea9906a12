/**
 * Reads a token from the address's fragment (`#token=…`, the banner's one-click link) and
 * removes it from the address bar and the history entry, so it is not bookmarked, shared or
 * left in the browser's history. Fragments never reach a server or its logs.
 */
export function takeTokenFromFragment(location: Location, history: History): string | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = fragment.get("token");
  if (token === null) return null;
  history.replaceState(history.state, "", `${location.pathname}${location.search}`);
  return token.trim() === "" ? null : token.trim();
}
