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

  async #request(method: string, path: string, body?: unknown): Promise<HubAnswer> {
    const url = `${this.#baseUrl}/hub/v1${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(120_000),
      });
    } catch {
      throw new TiclawkFailure(
        "hub_unreachable",
        `No hub answers at ${this.#baseUrl}; is talkide-daemon running there? (TICLAWK_HUB_URL sets the address.)`,
      );
    }
    const raw = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new TiclawkFailure(
        "bad_response",
        `${url} answered HTTP ${response.status} with something that is not JSON.`,
      );
    }
    if (!response.ok) {
      const error = (
        parsed as { error?: { code?: unknown; message?: unknown; path?: unknown } } | null
      )?.error;
      throw new TiclawkFailure(
        typeof error?.code === "string" ? error.code : `http_${response.status}`,
        typeof error?.message === "string"
          ? error.message
          : `The hub answered HTTP ${response.status}.`,
        typeof error?.path === "string" ? { path: error.path } : {},
      );
    }
    if (typeof (parsed as { text?: unknown } | null)?.text !== "string") {
      throw new TiclawkFailure("bad_response", `${url} answered without the text to print.`);
    }
    return parsed as HubAnswer;
  }
}
