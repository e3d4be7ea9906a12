import type { FastifyRequest } from "fastify";

/**
 * Whether a request's `Origin` is the console's own: the configured public URL's origin, or
 * the origin the request itself was addressed to (its Host header, as a browser on the same
 * page sends it). A request without `Origin` is not from a browser page and is refused where
 * this is asked (a cookie-borne state change); SameSite=Strict already keeps the cookie off
 * other sites' requests, this is the second lock.
 */
export function isAllowedOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const origin = request.headers.origin;
  if (origin === undefined || origin === "null") return false;
  if (origin === new URL(publicUrl).origin) return true;
  const host = request.headers.host;
  return host !== undefined && origin === `${request.protocol}://${host}`;
}

/** For routes reachable signed out that set the cookie: a foreign page may not sign anyone in. */
export function isForeignOrigin(request: FastifyRequest, publicUrl: string): boolean {
  return request.headers.origin !== undefined && !isAllowedOrigin(request, publicUrl);
}
