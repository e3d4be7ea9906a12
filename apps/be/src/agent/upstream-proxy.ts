import { trimWhiteSpace } from "@talkide/text";

/**
 * The proxy the service's LLM gateway reaches the provider through: the service's own
 * `HTTPS_PROXY` (for an https provider) or `HTTP_PROXY` (http; lower-case names too), unless
 * `NO_PROXY` lists the provider's host (exactly, as a domain suffix, or `*`), as curl and most
 * clients read them. Before the gateway the CLI made these connections and an operator handed
 * the variables through to it; now the service makes them. Never for a provider on loopback
 * (the local demo model, a proxy of one's own).
 */
export function upstreamProxy(upstreamUrl: string, env: NodeJS.ProcessEnv): string | null {
  const url = new URL(upstreamUrl);
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1" || /^127\./.test(host)) return null;
  const named = (name: string): string =>
    trimWhiteSpace(env[name.toUpperCase()] ?? env[name.toLowerCase()] ?? "");
  const proxy = named(url.protocol === "https:" ? "https_proxy" : "http_proxy");
  if (proxy === "") return null;
  const bypassed = named("no_proxy")
    .split(",")
    .map((entry) => trimWhiteSpace(entry).toLowerCase().replace(/:\d+$/, ""))
    .filter((entry) => entry !== "")
    .some((entry) => {
      if (entry === "*") return true;
      const domain = entry.replace(/^\*?\./, "");
      return host === domain || host.endsWith(`.${domain}`);
    });
  return bypassed ? null : proxy;
}
