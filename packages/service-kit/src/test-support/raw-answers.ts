import { request } from "node:http";

/** One request as it goes on the wire: exact header values (a tab, a lower-case scheme). */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/** What came back: status, every header but the ones that change per connection, the body. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Headers that differ from one request to the next for reasons of their own. */
const VARYING_HEADERS = new Set(["date", "connection", "keep-alive"]);

/**
 * Sends each request over its own connection (node:http, so no client adds or normalizes a
 * header) and returns the answers byte for byte, in order: what a suite pins so that a change
 * of the HTTP plumbing cannot change an answer unnoticed.
 */
export async function rawAnswers(
  baseUrl: string,
  requests: readonly RawRequest[],
): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  for (const each of requests) answers.push(await rawAnswer(baseUrl, each));
  return answers;
}

function rawAnswer(baseUrl: string, each: RawRequest): Promise<RawAnswer> {
  const url = new URL(each.path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port,
        method: each.method,
        // The path as given: URL would re-encode a hostile one.
        path: each.path,
        headers: each.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const headers: Record<string, string> = {};
          for (const name of Object.keys(res.headers).sort()) {
            const value = res.headers[name];
            if (VARYING_HEADERS.has(name) || value === undefined) continue;
            headers[name] = Array.isArray(value) ? value.join("\n") : value;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        });
      },
    );
    req.on("error", reject);
    req.end(each.body);
  });
}
