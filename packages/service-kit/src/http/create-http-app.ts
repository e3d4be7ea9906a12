import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { urlFaultOf, useStrictJsonBodies, useStrictUrls } from "@talkide/strict-json";
import type { ApiError } from "./api-error.ts";
import {
  DEFAULT_CONNECTION_LIMITS,
  connectionTimeoutOptions,
  limitConnectionsPerAddress,
  type ConnectionLimits,
} from "./connection-limits.ts";
import { apiErrorHandler, type SendApiError } from "./error-handler.ts";
import { BODY_LIMIT_BYTES, type FastifyErrorWording } from "./fastify-errors.ts";
import { QuietRequestLog } from "./quiet-request-log.ts";

export interface HttpAppOptions {
  /** Request lines and the errors no handler expected (a service passes a child: `component: "http"`). */
  readonly logger: FastifyBaseLogger;
  /** The service's error shape: `sendErrorBody` (`{ error: { code, message, path? } }`) or `sendProblem`. */
  readonly send: SendApiError;
  /** What a 500 says (never the error itself): where to look, in the service's words. */
  readonly internalErrorMessage: string;
  /** What a request for a route that does not exist gets (after the service's hooks). */
  readonly notFound: () => ApiError;
  /** The service's documented wording of Fastify's own refusals; the kit's by default. */
  readonly wording?: FastifyErrorWording;
  /** Timeouts and connections per address; the kit's defaults unless the operator set others. */
  readonly limits?: ConnectionLimits;
  /**
   * The header a client may name its request id in (it then appears in the log lines of its
   * request); false: ids are always generated, never taken from a client.
   */
  readonly requestIdHeader: string | false;
  /** Fastify's per-request lines at debug instead of info (`QuietRequestLog`). */
  readonly quietRequestLog?: boolean;
}

/**
 * A service's Fastify instance with everything its routes rely on, in the order it must be
 * set up before the first route:
 *
 * - slow headers and bodies time out with 408, one address cannot hold every file descriptor
 *   (`limits`), bodies over 1 MiB are refused (a route may allow more);
 * - JSON only (no text/plain parser: a text body would reach the handlers as a string), UTF-8
 *   only, and no string PostgreSQL cannot store (`useStrictJsonBodies`), refused with a stable
 *   code before any handler runs, so a bad body changes nothing;
 * - path and query values by the same text rules (`useStrictUrls`), in a hook before any the
 *   service adds (authentication) and before every route, those of today and any added later;
 * - one error handler (`apiErrorHandler`): every refusal, the router's own included (a
 *   percent-encoding that is not UTF-8, an overlong path parameter, which Fastify would
 *   otherwise answer in its own shape, repeating the path), in the service's shape; anything
 *   unexpected logged and a 500;
 * - the service's answer for a route that does not exist.
 */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const limits = options.limits ?? DEFAULT_CONNECTION_LIMITS;
  const handleError = apiErrorHandler(options);
  const app = Fastify({
    loggerInstance: options.logger,
    ...connectionTimeoutOptions(limits),
    ...(options.quietRequestLog === true ? { logController: new QuietRequestLog() } : {}),
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: options.requestIdHeader,
    return503OnClosing: true,
    frameworkErrors: (error, request, reply) => {
      void handleError(urlFaultOf(error), request, reply);
    },
  });
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress);
  app.removeContentTypeParser("text/plain");
  useStrictJsonBodies(app);
  app.setErrorHandler(handleError);
  useStrictUrls(app);
  app.setNotFoundHandler(() => {
    throw options.notFound();
  });
  return app;
}
