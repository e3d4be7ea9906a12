import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { BodyFault, UrlFault } from "@talkide/strict-json";
import { AppError } from "../errors.ts";

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly [extension: string]: unknown;
}

export function problemOf(error: AppError): Problem {
  return {
    ...error.extensions,
    type: `urn:talkide:problem:${error.code}`,
    title: error.title,
    status: error.status,
    code: error.code,
    detail: error.message,
  };
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  return reply.code(error.status).type("application/problem+json").send(problemOf(error));
}

/** Parses a request body with a zod schema; a mismatch names the fields, never their values. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? null);
  if (result.success) return result.data;
  throw new AppError(
    "invalid_body",
    400,
    "Invalid request body",
    "The request body does not have the expected shape; see `errors` for each field.",
    {
      errors: result.error.issues.map((issue) => ({
        path: issue.path.map(String).join("."),
        message: issue.message,
      })),
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

/** Errors Fastify raises itself, mapped to stable codes; none repeats the request's input. */
function fromFastifyError(error: FastifyError | UrlFault): AppError | null {
  if (error instanceof UrlFault) {
    return new AppError(
      error.code,
      error.statusCode,
      URL_FAULT_TITLES[error.code],
      error.message,
      error.path === undefined ? {} : { path: error.path },
    );
  }
  if (error instanceof BodyFault) {
    return new AppError(
      error.code,
      error.statusCode,
      BODY_FAULT_TITLES[error.code],
      error.message,
      error.path === undefined ? {} : { path: error.path },
    );
  }
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError(
        "unsupported_media_type",
        415,
        "Unsupported media type",
        "Send the request body as JSON with Content-Type: application/json.",
      );
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new AppError(
        "payload_too_large",
        413,
        "Request body too large",
        "The request body is larger than the service accepts (1 MiB).",
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new AppError(
        "invalid_json",
        400,
        "Invalid JSON",
        "The request body is not valid JSON.",
      );
    default:
      if (error instanceof SyntaxError && error.statusCode === 400) {
        return new AppError(
          "invalid_json",
          400,
          "Invalid JSON",
          "The request body is not valid JSON.",
        );
      }
      if (
        typeof error.statusCode === "number" &&
        error.statusCode >= 400 &&
        error.statusCode < 500
      ) {
        return new AppError(
          "bad_request",
          error.statusCode,
          "Bad request",
          "The request could not be processed.",
        );
      }
      return null;
  }
}

export function errorHandler(
  error: FastifyError | UrlFault,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof AppError) return sendProblem(reply, error);
  const mapped = fromFastifyError(error);
  if (mapped !== null) return sendProblem(reply, mapped);
  request.log.error({ err: error }, "request failed");
  return sendProblem(
    reply,
    new AppError(
      "internal_error",
      500,
      "Internal error",
      "The service failed to handle this request; the service log has the details.",
    ),
  );
}
