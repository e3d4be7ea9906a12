import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";

/**
 * Why a request's URL was refused before any handler saw it: the same text rules as bodies
 * (UTF-8, no NUL, no lone surrogate) plus a length bound. Each fault has a stable code; the
 * message never repeats any part of the URL.
 */
export type UrlFaultCode = "invalid_encoding" | "invalid_text" | "parameter_too_long";

export class UrlFault extends Error {
  readonly code: UrlFaultCode;
  /** The HTTP status to answer with (414 for an overlong parameter, else 400). */
  readonly statusCode: number;
  /** The parameter's name when it is a plain identifier, `*` otherwise; absent for the URL as a whole. */
  readonly path: string | undefined;
  constructor(code: UrlFaultCode, statusCode: number, message: string, path?: string) {
    super(message);
    this.name = "UrlFault";
    this.code = code;
    this.statusCode = statusCode;
    this.path = path;
  }
}

/** Fastify's own bound on one path parameter (its `maxParamLength` default), in characters. */
export const MAX_PATH_PARAMETER_CHARS = 100;

/** The bound on one query value (after decoding): longer than any value a route accepts. */
export const MAX_QUERY_VALUE_CHARS = 1000;

/** The largest value of a PostgreSQL `integer` column: query integers that reach one stop here. */
export const PG_INTEGER_MAX = 2 ** 31 - 1;

function parameterName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) ? name : "*";
}

const notUtf8 = (): UrlFault =>
  new UrlFault(
    "invalid_encoding",
    400,
    "The URL holds a percent-encoded byte sequence that is not UTF-8 (or a lone surrogate); percent-encode parameters as UTF-8.",
  );

/** Every `name=value` pair of a raw query string decodes as UTF-8 (`+` is a space). */
function checkRawQuery(query: string): void {
  for (const pair of query.split("&")) {
    try {
      decodeURIComponent(pair.replaceAll("+", " "));
    } catch {
      throw notUtf8();
    }
  }
}

function checkValue(name: string, value: unknown, maxChars: number): void {
  if (Array.isArray(value)) {
    for (const item of value) checkValue(name, item, maxChars);
    return;
  }
  if (typeof value !== "string") return;
  if (value.includes("\0") || !value.isWellFormed()) {
    throw new UrlFault(
      "invalid_text",
      400,
      `The URL parameter ${parameterName(name)} holds a character that cannot be stored (NUL or a lone surrogate); remove it.`,
      parameterName(name),
    );
  }
  if (value.length > maxChars) {
    throw new UrlFault(
      "parameter_too_long",
      414,
      `The URL parameter ${parameterName(name)} is longer than ${maxChars} characters; no route accepts that.`,
      parameterName(name),
    );
  }
}

function checkNames(names: readonly string[]): void {
  for (const name of names) checkValue("*", name, MAX_QUERY_VALUE_CHARS);
}

/**
 * Refuses a request whose path parameters or query (names and values) break the text rules
 * bodies follow: the raw query must decode as UTF-8, no value may hold NUL or a lone
 * surrogate, and none may be longer than the bounds above.
 */
export function checkRequestUrl(request: FastifyRequest): void {
  const url = request.raw.url ?? "";
  const mark = url.indexOf("?");
  if (mark !== -1) checkRawQuery(url.slice(mark + 1));
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    checkValue(name, value, MAX_PATH_PARAMETER_CHARS);
  }
  const query = (request.query ?? {}) as Record<string, unknown>;
  checkNames(Object.keys(query));
  for (const [name, value] of Object.entries(query)) {
    checkValue(name, value, MAX_QUERY_VALUE_CHARS);
  }
}

/** One route as the router holds it: `GET` and `/v1/projects/:projectId/turns`. */
export interface GuardedRoute {
  readonly method: string;
  readonly url: string;
}

const guarded = new WeakMap<FastifyInstance, GuardedRoute[]>();

/**
 * Every route registered on `app` (and its plugins) after `useStrictUrls(app)`, taken from
 * the router's `onRoute` hook: a test walks them all, so a new route is covered without
 * anyone listing it.
 */
export function guardedRoutes(app: FastifyInstance): readonly GuardedRoute[] {
  return guarded.get(app) ?? [];
}

/**
 * Checks every request's URL (`checkRequestUrl`) before any other hook — authentication
 * included — so a hostile parameter never reaches a handler or the database, on the routes
 * of today and on any added later. Register it before the app's routes and its other
 * `onRequest` hooks.
 */
export function useStrictUrls(app: FastifyInstance): void {
  const routes: GuardedRoute[] = [];
  guarded.set(app, routes);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  app.addHook("onRequest", (request, _reply, done) => {
    try {
      checkRequestUrl(request);
    } catch (fault) {
      done(fault as Error);
      return;
    }
    done();
  });
}

/**
 * Fastify's router refuses some URLs itself, before hooks run, with a body that repeats the
 * path: a percent-encoding that does not decode (`FST_ERR_BAD_URL`), a path parameter over
 * `maxParamLength` (`FST_ERR_MAX_PARAM_LENGTH`). Pass them to the app's error handler as
 * `UrlFault`s from Fastify's `frameworkErrors` option; other errors come back unchanged.
 */
export function urlFaultOf(error: FastifyError): FastifyError | UrlFault {
  switch (error.code) {
    case "FST_ERR_BAD_URL":
      return notUtf8();
    case "FST_ERR_MAX_PARAM_LENGTH":
      return new UrlFault(
        "parameter_too_long",
        414,
        `A path parameter is longer than ${MAX_PATH_PARAMETER_CHARS} characters; no route accepts that.`,
      );
    default:
      return error;
  }
}

/**
 * A whole number in a URL, as a zod schema: decimal digits only (no sign, exponent, space or
 * fraction) and within `min`..`max`, which for a value compared with a database column must
 * fit that column (`PG_INTEGER_MAX` for `integer`).
 */
export function urlInteger(bounds: { readonly min: number; readonly max: number }) {
  const rule = `must be a whole number from ${bounds.min} to ${bounds.max}`;
  return z
    .string()
    .refine((text) => {
      if (!/^[0-9]{1,16}$/.test(text)) return false;
      const value = Number(text);
      return value >= bounds.min && value <= bounds.max;
    }, rule)
    .transform(Number);
}
