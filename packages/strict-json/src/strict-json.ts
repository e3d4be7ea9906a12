import type { FastifyInstance, FastifyRequest } from "fastify";

/**
 * Why a JSON request body was refused before any handler saw it. Each fault has a stable
 * code; the message says what to send instead and never repeats any part of the body (it
 * may be personal data or a prompt).
 */
export type BodyFaultCode =
  "unsupported_charset" | "invalid_encoding" | "invalid_text" | "too_deeply_nested";

export class BodyFault extends Error {
  readonly code: BodyFaultCode;
  /** The HTTP status to answer with (415 for a charset, else 400). */
  readonly statusCode: number;
  /** Where in the body, as `field.0.name`; absent when the fault is the body as a whole. */
  readonly path: string | undefined;
  constructor(code: BodyFaultCode, statusCode: number, message: string, path?: string) {
    super(message);
    this.name = "BodyFault";
    this.code = code;
    this.statusCode = statusCode;
    this.path = path;
  }
}

/** Deeper than any body the services accept; deeper bodies are refused before validation. */
export const MAX_NESTING = 32;

const UTF8_NAMES = new Set(["utf-8", "utf8"]);

/** The `charset` parameter of a Content-Type header, lower case and unquoted; null when absent. */
export function charsetOf(contentType: string | undefined): string | null {
  for (const parameter of (contentType ?? "").split(";").slice(1)) {
    const [name, ...rest] = parameter.split("=");
    if (name?.trim().toLowerCase() === "charset") {
      return rest
        .join("=")
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase();
    }
  }
  return null;
}

/** JSON is UTF-8 (RFC 8259 §8.1): any other declared charset is refused, not guessed at. */
export function checkCharset(contentType: string | undefined): void {
  const charset = charsetOf(contentType);
  if (charset !== null && !UTF8_NAMES.has(charset)) {
    throw new BodyFault(
      "unsupported_charset",
      415,
      "JSON bodies must be UTF-8: send Content-Type: application/json (or with charset=utf-8).",
    );
  }
}

/** The body as text; bytes that are not UTF-8 are refused instead of becoming U+FFFD. */
export function decodeUtf8(body: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw new BodyFault(
      "invalid_encoding",
      400,
      "The request body is not valid UTF-8; encode the JSON as UTF-8.",
    );
  }
}

/** A path segment safe to show: an index or a plain field name; anything else is `*`. */
function segment(key: string | number): string {
  return typeof key === "number" || /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key) ? String(key) : "*";
}

function cannotBeStored(text: string): boolean {
  return text.includes("\0") || !text.isWellFormed();
}

/**
 * Refuses a parsed body that holds a string (a value or a key) no PostgreSQL text column can
 * store as sent — NUL, or a lone surrogate (JSON can escape one, UTF-8 cannot encode it) —
 * or that nests deeper than `maxNesting`. Walks with an explicit stack: a hostile body must
 * not exhaust the call stack.
 */
export function checkStorableText(value: unknown, maxNesting: number = MAX_NESTING): void {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: current, path } = item;
    if (typeof current === "string") {
      if (cannotBeStored(current)) {
        throw new BodyFault(
          "invalid_text",
          400,
          `${path.length === 0 ? "The body" : path.join(".")} holds a character that cannot be stored (NUL or a lone surrogate); remove it.`,
          path.join("."),
        );
      }
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    if (path.length >= maxNesting) {
      throw new BodyFault(
        "too_deeply_nested",
        400,
        `The request body nests deeper than ${maxNesting} levels; no request needs that.`,
      );
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(current)
      ? current.map((v, i) => [i, v])
      : Object.entries(current);
    for (const [key, child] of entries) {
      const childPath = [...path, segment(key)];
      if (typeof key === "string" && cannotBeStored(key)) {
        throw new BodyFault(
          "invalid_text",
          400,
          `A field name in ${path.length === 0 ? "the body" : path.join(".")} holds a character that cannot be stored (NUL or a lone surrogate).`,
          path.join("."),
        );
      }
      stack.push({ value: child, path: childPath });
    }
  }
}

/**
 * Replaces the app's `application/json` parser with a strict one: a declared charset other
 * than UTF-8 is a 415, bytes that are not UTF-8 and strings that cannot be stored are 400s,
 * all as `BodyFault`s the app's error handler maps to its own error shape. Fastify's own
 * parser still does the parsing (and refuses `__proto__`/`constructor` poisoning).
 */
export function useStrictJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer" },
    (
      request: FastifyRequest,
      body: Buffer,
      done: (error: Error | null, value?: unknown) => void,
    ) => {
      try {
        checkCharset(request.headers["content-type"]);
        const text = decodeUtf8(body);
        void parseJson(request, text, (error: Error | null, value?: unknown) => {
          if (error !== null) {
            done(error);
            return;
          }
          try {
            checkStorableText(value);
          } catch (fault) {
            done(fault as Error);
            return;
          }
          done(null, value);
        });
      } catch (fault) {
        done(fault as Error);
      }
    },
  );
}
