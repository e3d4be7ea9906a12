import { STATUS_CODES } from "node:http";
import type { FastifyReply } from "fastify";

export interface ApiErrorDetails {
  /** The input field at fault (`workspaceDir`, `members.0.email`). */
  readonly path?: string | undefined;
  /** A short summary, the same for every error of this code (problem+json `title`). */
  readonly title?: string;
  /** More members of a problem+json body (`errors`: one entry per bad field). */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * An API refusal with a stable code: clients branch on `code`, people read `message`, which
 * says what to do and never repeats a submitted value (it may be personal data). One class
 * for every service; each renders it in its own documented shape: `errorBody` (the daemon,
 * the hub) or `problemBody` (the backend's application/problem+json).
 */
export class ApiError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly path: string | undefined;
  readonly title: string | undefined;
  readonly extensions: Readonly<Record<string, unknown>>;
  constructor(httpStatus: number, code: string, message: string, details: ApiErrorDetails = {}) {
    super(message);
    this.name = "ApiError";
    this.httpStatus = httpStatus;
    this.code = code;
    this.path = details.path;
    this.title = details.title;
    this.extensions = details.extensions ?? {};
  }
}

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly path?: string };
}

/** `{ "error": { code, message, path? } }`: the daemon's and the hub's error shape. */
export function errorBody(code: string, message: string, path?: string): ErrorBody {
  return { error: { code, message, ...(path === undefined ? {} : { path }) } };
}

/** Sends an `ApiError` as `{ "error": { code, message, path? } }` (the daemon, the hub). */
export function sendErrorBody(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.httpStatus).send(errorBody(error.code, error.message, error.path));
}

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly [extension: string]: unknown;
}

/** An RFC 9457 problem: the backend's error shape, `type` a URN of the code. */
export function problemBody(error: ApiError): Problem {
  return {
    ...(error.path === undefined ? {} : { path: error.path }),
    ...error.extensions,
    type: `urn:talkide:problem:${error.code}`,
    title: error.title ?? STATUS_CODES[error.httpStatus] ?? "Error",
    status: error.httpStatus,
    code: error.code,
    detail: error.message,
  };
}

/** Sends an `ApiError` as application/problem+json (the backend). */
export function sendProblem(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.httpStatus).type("application/problem+json").send(problemBody(error));
}
