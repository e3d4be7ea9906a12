import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { ApiError, mapFastifyError, sendProblem } from "@talkide/service-kit";
import { BodyFault, UrlFault } from "@talkide/strict-json";

/** Parses a request body with a zod schema; a mismatch names the fields, never their values. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? null);
  if (result.success) return result.data;
  throw new ApiError(
    400,
    "invalid_body",
    "The request body does not have the expected shape; see `errors` for each field.",
    {
      title: "Invalid request body",
      extensions: {
        errors: result.error.issues.map((issue) => ({
          path: issue.path.map(String).join("."),
          message: issue.message,
        })),
      },
    },
  );
}

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

/** The backend's wording of Fastify's own refusals (apps/be/API.md). */
const WORDING = {
  payloadTooLarge: "The request body is larger than the service accepts (1 MiB).",
  unsupportedMediaType: "Send the request body as JSON with Content-Type: application/json.",
  badRequest: "The request could not be processed.",
};

/** A refusal of the strict body and URL rules, or of Fastify itself, as an ApiError; else null. */
function refusalOf(error: FastifyError | UrlFault | BodyFault): ApiError | null {
  if (error instanceof UrlFault) {
    const title = URL_FAULT_TITLES[error.code];
    return new ApiError(error.statusCode, error.code, error.message, { path: error.path, title });
  }
  if (error instanceof BodyFault) {
    const title = BODY_FAULT_TITLES[error.code];
    return new ApiError(error.statusCode, error.code, error.message, { path: error.path, title });
  }
  return mapFastifyError(error, WORDING);
}

/** Every error as application/problem+json; anything unexpected is logged and a 500. */
export function errorHandler(
  error: FastifyError | UrlFault,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof ApiError) return sendProblem(reply, error);
  const refusal = refusalOf(error);
  if (refusal !== null) return sendProblem(reply, refusal);
  request.log.error({ err: error }, "request failed");
  return sendProblem(
    reply,
    new ApiError(
      500,
      "internal_error",
      "The service failed to handle this request; the service log has the details.",
      { title: "Internal error" },
    ),
  );
}
