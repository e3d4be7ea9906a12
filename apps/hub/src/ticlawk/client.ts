import { TiclawkFailure } from "./failure.ts";

/** What the hub answers on success: data plus the canonical `text` the CLI prints. */
export interface HubAnswer {
  readonly text: string;
  readonly [key: string]: unknown;
}

/**
 * The hub's member API over HTTP (Node's fetch), authenticated with the member's token. A
 * refusal becomes a `TiclawkFailure` carrying the hub's code and message unchanged.
 */
export class HubClient {
  readonly #baseUrl: string;
  readonly #token: string;
  constructor(baseUrl: string, token: string) {
    this.#baseUrl = baseUrl.replace(/\/+$/, "");
    this.#token = token;
  }

  async get(
    path: string,
    query: Readonly<Record<string, string | number | undefined>> = {},
  ): Promise<HubAnswer> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query))
      if (value !== undefined) params.set(key, String(value));
    const search = params.size === 0 ? "" : `?${params.toString()}`;
    return this.#request("GET", `${path}${search}`);
  }

  async send(method: "POST" | "PUT", path: string, body: unknown): Promise<HubAnswer> {
    return this.#request(method, path, body);
  }

  /**
   * A file the hub serves as bytes (an attachment), with the file name it was sent under;
   * refusals are JSON as everywhere else.
   */
  async download(path: string): Promise<{ readonly bytes: Uint8Array; readonly fileName: string }> {
    const { url, response } = await this.#fetch("GET", path);
    if (!response.ok) throw refusal(response.status, await readJson(url, response));
    const disposition = response.headers.get("content-disposition") ?? "";
    const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? "";
    return { bytes: new Uint8Array(await response.arrayBuffer()), fileName: decoded(encoded) };
  }

  async #fetch(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ readonly url: string; readonly response: Response }> {
    const url = `${this.#baseUrl}/hub/v1${path}`;
    try {
      const response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(120_000),
      });
      return { url, response };
    } catch {
      throw new TiclawkFailure(
        "hub_unreachable",
        `No hub answers at ${this.#baseUrl}; is talkide-hub running there? (TICLAWK_HUB_URL sets the address.)`,
      );
    }
  }

  async #request(method: string, path: string, body?: unknown): Promise<HubAnswer> {
    const { url, response } = await this.#fetch(method, path, body);
    const parsed = await readJson(url, response);
    if (!response.ok) throw refusal(response.status, parsed);
    if (typeof (parsed as { text?: unknown } | null)?.text !== "string") {
      throw new TiclawkFailure("bad_response", `${url} answered without the text to print.`);
    }
    return parsed as HubAnswer;
  }
}

/** A percent-encoded file name, or `""` when it does not decode. */
function decoded(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return "";
  }
}

async function readJson(url: string, response: Response): Promise<unknown> {
  const raw = await response.text();
  try {
    return JSON.parse(raw);
  } catch {
    throw new TiclawkFailure(
      "bad_response",
      `${url} answered HTTP ${response.status} with something that is not JSON.`,
    );
  }
}

/** The hub's refusal, with its code, message and path unchanged. */
function refusal(status: number, parsed: unknown): TiclawkFailure {
  const error = (parsed as { error?: { code?: unknown; message?: unknown; path?: unknown } } | null)
    ?.error;
  return new TiclawkFailure(
    typeof error?.code === "string" ? error.code : `http_${status}`,
    typeof error?.message === "string" ? error.message : `The hub answered HTTP ${status}.`,
    typeof error?.path === "string" ? { path: error.path } : {},
  );
}
