import type { FastifyError } from "fastify";

/**
 * Largest accepted request body of a service's routes (a route may allow more); a delivery
 * is one chat message plus its context.
 */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Fastify's own refusals (malformed or oversized body, wrong media type, other 4xx) as a
 * status and stable code for the error body; null for anything else, which is a 500.
 */
export function mapFastifyError(
  error: FastifyError,
): { status: number; code: string; message: string } | null {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return { status: 400, code: "invalid_json", message: "The request body is not valid JSON." };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return {
        status: 413,
        code: "payload_too_large",
        message: `The request body exceeds ${BODY_LIMIT_BYTES} bytes.`,
      };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return {
        status: 415,
        code: "unsupported_media_type",
        message: "Send the body as application/json.",
      };
    default:
      break;
  }
  // Any other refusal of Fastify's own: its message may repeat the request (a path, a header
  // value), so a fixed one stands in.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return {
      status: error.statusCode,
      code: "bad_request",
      message: "The request could not be processed; see the service's README for the API.",
    };
  }
  return null;
}
