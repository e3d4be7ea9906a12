import { request as httpRequest } from "node:http";
import type { GuardedRoute } from "./strict-url.ts";

/**
 * A marker every hostile body and URL value carries in its text: a test asserts it never
 * shows up in a response or a log line (nor anywhere else it must not go).
 */
export const CANARY = "zqcanary7f3e";
const MARK = CANARY;

/** One hostile value for a path parameter or a query value, percent-encoded as sent. */
export interface HostileUrlValue {
  readonly name: string;
  readonly encoded: string;
  /** Text a response must not repeat; null when the value is too plain to tell (`-1`). */
  readonly echo: string | null;
}

/**
 * Values no client should put in a URL: integers past PostgreSQL's `integer` and `bigint`,
 * signs, exponents and fractions, NUL, bytes that are not UTF-8, an encoded lone surrogate,
 * values over every bound, empty ones and an encoded `../`.
 */
export const HOSTILE_URL_VALUES: readonly HostileUrlValue[] = [
  { name: "2^31", encoded: "2147483648", echo: "2147483648" },
  { name: "2^63", encoded: "9223372036854775808", echo: "9223372036854775808" },
  { name: "2^64 and more", encoded: "184467440737095516160000", echo: "184467440737095516160000" },
  { name: "-1", encoded: "-1", echo: null },
  { name: "exponent", encoded: "1e3", echo: null },
  { name: "fraction", encoded: "1.5", echo: null },
  { name: "NUL", encoded: `${MARK}%00x`, echo: MARK },
  { name: "NUL alone", encoded: "%00", echo: "\u0000" },
  { name: "not UTF-8", encoded: `${MARK}%ff`, echo: MARK },
  { name: "lone surrogate", encoded: `${MARK}%ED%A0%80`, echo: MARK },
  { name: "truncated escape", encoded: `${MARK}%e`, echo: MARK },
  { name: "overlong", encoded: MARK.repeat(100), echo: MARK },
  { name: "long", encoded: MARK.repeat(20), echo: MARK },
  { name: "empty", encoded: "", echo: null },
  { name: "dot-dot slash", encoded: `..%2f..%2f${MARK}`, echo: MARK },
  { name: "control and quote", encoded: `${MARK}%01%22%3Cx%3E`, echo: MARK },
];

export interface UrlResponse {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

export interface HostileUrlWalk {
  readonly baseUrl: string;
  /** Every route of the service, from its router (`guardedRoutes(app)`). */
  readonly routes: readonly GuardedRoute[];
  /** A harmless value for each path parameter while another one is hostile (default `x`). */
  readonly params: Readonly<Record<string, string>>;
  /** Query names to try hostile values in, on every route. */
  readonly queryNames: readonly string[];
  /** Bearer tokens to send each request with; null sends none. */
  readonly tokens: readonly (string | null)[];
  /** Why an error response breaks the service's documented shape; null when it does not. */
  readonly errorShapeFault: (response: UrlResponse) => string | null;
  /** Routes left out, as `METHOD url`, each for a reason the test states. */
  readonly skip?: readonly string[];
}

function fillPath(url: string, params: Readonly<Record<string, string>>, hostile?: string): string {
  return url.replace(/:([A-Za-z0-9_]+)|\*$/g, (_match, name: string | undefined) => {
    if (name === hostile) return "@@HOSTILE@@";
    if (name === undefined) return hostile === "*" ? "@@HOSTILE@@" : (params["*"] ?? "x");
    // A parameter the test names no value for (a route added since) still gets walked.
    return encodeURIComponent(params[name] ?? "x");
  });
}

/** One request over plain HTTP, the path sent exactly as given (no URL normalisation). */
function send(
  baseUrl: string,
  method: string,
  path: string,
  token: string | null,
): Promise<UrlResponse> {
  const base = new URL(baseUrl);
  const body = method === "GET" || method === "HEAD" ? null : "{}";
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        // A fresh connection each: a kept-alive one the server closes meanwhile would fail.
        agent: false,
        headers: {
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          // An explicit length: Node sends a DELETE's body neither chunked nor measured.
          ...(body === null
            ? {}
            : { "content-type": "application/json", "content-length": String(body.length) }),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const contentType = res.headers["content-type"] ?? "";
        // A success may be an endless event stream: only its status matters here.
        if (status < 400) {
          res.destroy();
          resolve({ status, contentType, text: "" });
          return;
        }
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          resolve({ status, contentType, text: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

/**
 * Sends every route hostile values in each path parameter and in each query name, with each
 * token: the answers must be no 5xx, every error in the documented shape, and no response may
 * repeat the hostile text. Returns what went wrong (empty when nothing did), one line each.
 */
export async function walkHostileUrls(walk: HostileUrlWalk): Promise<string[]> {
  const faults: string[] = [];
  const check = (where: string, value: HostileUrlValue, response: UrlResponse): void => {
    if (response.status >= 500) faults.push(`${where}: ${response.status}`);
    if (response.status >= 400) {
      const shape = walk.errorShapeFault(response);
      if (shape !== null) faults.push(`${where}: ${shape}`);
    }
    if (value.echo !== null && response.text.includes(value.echo))
      faults.push(`${where}: repeats the hostile value`);
  };
  for (const route of walk.routes) {
    // HEAD runs the GET handler and answers without a body: the GET walk covers it.
    if (route.method === "HEAD") continue;
    if (walk.skip?.includes(`${route.method} ${route.url}`) === true) continue;
    const names = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
    if (route.url.endsWith("*")) names.push("*");
    for (const value of HOSTILE_URL_VALUES) {
      const paths = [
        ...names.map((name) => [
          `:${name}`,
          fillPath(route.url, walk.params, name).replace("@@HOSTILE@@", value.encoded),
        ]),
        ...walk.queryNames.map((query) => [
          `?${query}`,
          `${fillPath(route.url, walk.params)}?${query}=${value.encoded}`,
        ]),
      ];
      for (const [part, path] of paths) {
        for (const token of walk.tokens) {
          const where = `${route.method} ${route.url} ${part}=${value.name}${token === null ? " (no token)" : ""}`;
          const response = await send(walk.baseUrl, route.method, path as string, token).catch(
            (error: unknown) => {
              throw new Error(`${where}: ${String(error)}`);
            },
          );
          check(where, value, response);
        }
      }
    }
  }
  return faults;
}
