// The narrow entry point: `ticlawk` imports this file, and the package root would load the
// database drivers and the logger into every CLI call.
import { ApiError } from "@talkide/service-kit/errors";

/**
 * The hub's refusals are the daemon's `ApiError`s, so its error handler answers them in the
 * daemon's shape `{ "error": { code, message, path? } }`; the `ticlawk` CLI prints that object
 * to standard error. Codes are stable; messages say what to do instead.
 */
export const badRequest = (code: string, message: string, path?: string): ApiError =>
  new ApiError(400, code, message, { path });
export const forbidden = (code: string, message: string): ApiError =>
  new ApiError(403, code, message);
export const notFound = (code: string, message: string): ApiError =>
  new ApiError(404, code, message);
export const conflict = (code: string, message: string): ApiError =>
  new ApiError(409, code, message);
