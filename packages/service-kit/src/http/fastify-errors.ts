import type { FastifyError } from "fastify";
import { ApiError } from "./api-error.ts";

/**
 * Largest accepted request body of a service's routes (a route may allow more); a delivery
 * is one chat message plus its context.
 */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The messages of the refusals whose wording a service documents as its own. */
export interface FastifyErrorWording {
  readonly payloadTooLarge: string;
  readonly unsupportedMediaType: string;
  readonly badRequest: string;
}

const DEFAULT_WORDING: FastifyErrorWording = {
  payloadTooLarge: `The request body exceeds ${BODY_LIMIT_BYTES} bytes.`,
  unsupportedMediaType: "Send the body as application/json.",
  badRequest: "The request could not be processed; see the service's README for the API.",
};

/**
 * Fastify's own refusals (malformed or oversized body, wrong media type, other 4xx) as an
 * `ApiError` with a stable code; null for anything else, which is a 500. No message repeats
 * the request.
 */
export function mapFastifyError(
  error: FastifyError,
  wording: FastifyErrorWording = DEFAULT_WORDING,
): ApiError | null {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return invalidJson();
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError(413, "payload_too_large", wording.payloadTooLarge, {
        title: "Request body too large",
      });
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError(415, "unsupported_media_type", wording.unsupportedMediaType, {
        title: "Unsupported media type",
      });
    default:
      break;
  }
  // A JSON parser's own SyntaxError, marked a client error by Fastify.
  if (error instanceof SyntaxError && error.statusCode === 400) return invalidJson();
  // Any other refusal of Fastify's own: its message may repeat the request (a path, a header
  // value), so a fixed one stands in.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(error.statusCode, "bad_request", wording.badRequest, {
      title: "Bad request",
    });
  }
  return null;
}

const invalidJson = (): ApiError =>
  new ApiError(400, "invalid_json", "The request body is not valid JSON.", {
    title: "Invalid JSON",
  });
