/**
 * Where people reach the service. Links (sign-in, invites) are built on the public URL; when
 * none is configured it is the listen address, with a wildcard listen address (0.0.0.0, ::)
 * shown as loopback, since a wildcard cannot be opened.
 */
export function openableUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

/** Whether an address names this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * What the banner says when links and the listen address disagree: links on loopback while
 * teammates could connect (they would get links they cannot open), or links for the network
 * while only this machine can connect. Null when they agree.
 */
export function reachabilityWarning(
  publicUrl: string,
  listensBeyondLoopback: boolean,
): string | null {
  const linksLoopback = isLoopbackHost(new URL(publicUrl).hostname);
  if (listensBeyondLoopback && linksLoopback) {
    return [
      "Note: the service listens beyond this machine (TALKIDE_HOST), but its links point at",
      `${publicUrl}, which only this machine can open. Set TALKIDE_PUBLIC_URL to the address`,
      "your teammates use (e.g. TALKIDE_PUBLIC_URL=http://192.0.2.10:9090).",
    ].join("\n");
  }
  if (!listensBeyondLoopback && !linksLoopback) {
    return [
      `Note: links point at ${publicUrl} (TALKIDE_PUBLIC_URL), but the service listens on`,
      "loopback only: set TALKIDE_HOST=0.0.0.0 (or put a proxy in front) so others can connect.",
    ].join("\n");
  }
  return null;
}
