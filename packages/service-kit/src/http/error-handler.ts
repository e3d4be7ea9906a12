import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { BodyFault, UrlFault } from "@talkide/strict-json";
import { ApiError } from "./api-error.ts";
import { mapFastifyError, type FastifyErrorWording } from "./fastify-errors.ts";

/** How a service writes a refusal: `sendErrorBody` (`{ error }`) or `sendProblem` (problem+json). */
export type SendApiError = (reply: FastifyReply, error: ApiError) => FastifyReply;

const BODY_FAULT_TITLES: Record<BodyFault["code"], string> = {
  unsupported_charset: "Unsupported charset",
  invalid_encoding: "Body is not UTF-8",
  invalid_text: "Text that cannot be stored",
  too_deeply_nested: "Body nested too deeply",
};

const URL_FAULT_TITLES: Record<UrlFault["code"], string> = {
  invalid_encoding: "URL is not UTF-8",
  invalid_text: "Text that cannot be stored",
  parameter_too_long: "URL parameter too long",
};

/**
 * Any refusal as an `ApiError`: the service's own, the strict body and URL rules'
 * (`@talkide/strict-json`), or Fastify's (bad JSON, too large, wrong media type, any other
 * 4xx). Null for anything else, which is a failure of the service, not of the request.
 */
export function refusalOf(error: unknown, wording?: FastifyErrorWording): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof UrlFault) {
    const title = URL_FAULT_TITLES[error.code];
    return new ApiError(error.statusCode, error.code, error.message, { path: error.path, title });
  }
  if (error instanceof BodyFault) {
    const title = BODY_FAULT_TITLES[error.code];
    return new ApiError(error.statusCode, error.code, error.message, { path: error.path, title });
  }
  if (!(error instanceof Error)) return null;
  return mapFastifyError(error as FastifyError, wording);
}

/**
 * A service's one error handler: every refusal in the service's shape; anything unexpected
 * logged with the request and answered 500 `internal_error` with `internalErrorMessage`,
 * which never repeats the error (it may hold a value of the request or the database).
 */
export function apiErrorHandler(options: {
  readonly send: SendApiError;
  readonly internalErrorMessage: string;
  readonly wording?: FastifyErrorWording | undefined;
}): (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (error, request, reply) => {
    const refusal = refusalOf(error, options.wording);
    if (refusal !== null) return options.send(reply, refusal);
    request.log.error({ err: error }, "request failed");
    return options.send(
      reply,
      new ApiError(500, "internal_error", options.internalErrorMessage, {
        title: "Internal error",
      }),
    );
  };
}
