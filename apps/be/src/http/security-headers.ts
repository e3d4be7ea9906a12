import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";

/**
 * Headers that keep the console a page of its own (issue 48), set by @fastify/helmet on every
 * response: the console's own scripts and styles only (Vite builds no inline script), no
 * framing by any page (`frame-ancestors 'none'`, and X-Frame-Options for older browsers), no
 * content sniffing, and no Referer, so no address of ours leaves with a click on a link.
 * Written out in full instead of helmet's defaults: those upgrade insecure requests, which
 * would break a team's plain-http address on its own network.
 */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  publicUrl: string,
): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: "deny" },
    referrerPolicy: { policy: "no-referrer" },
    // Only where people reach the service over https (a plain-http address has no use for it).
    strictTransportSecurity: publicUrl.startsWith("https:"),
  });
}
