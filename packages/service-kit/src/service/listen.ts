import type { FastifyInstance } from "fastify";
import { httpUrl } from "../http/http-url.ts";

/**
 * Starts serving on `host`:`port` and returns the port it got (port 0 takes any free one) and
 * the service's `http://` URL on it.
 */
export async function listen(
  app: FastifyInstance,
  host: string,
  port: number,
): Promise<{ readonly port: number; readonly url: string }> {
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  return { port: bound, url: httpUrl(host, bound) };
}
