/** A failure the CLI reports in one line and exits 1 with. */
export class CliError extends Error {
  readonly code: string;
  /** The HTTP status when the failure is the service's answer; null otherwise. */
  readonly status: number | null;
  constructor(code: string, message: string, status: number | null = null) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.status = status;
  }
}

/**
 * Talks to a running service's HTTP API with the admin token. The embedded database belongs
 * to the service process alone, so its CLI never opens it: every command goes through the API.
 */
export class AdminClient {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #unreachable: { readonly code: string; readonly hint: string };
  constructor(
    baseUrl: string,
    token: string,
    /** What to say when nothing answers; `{url}` in the hint becomes the base URL. */
    unreachable: { readonly code: string; readonly hint: string },
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#token = token;
    this.#unreachable = unreachable;
  }

  /**
   * One API call. The body is returned as `T` after `parse` (which may validate it; by
   * default the JSON is taken as it is).
   */
  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    parse: (json: unknown) => T = (json) => json as T,
  ): Promise<{ status: number; body: T }> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      const { code, hint } = this.#unreachable;
      throw new CliError(code, hint.replace("{url}", this.baseUrl));
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      throw new CliError(
        "bad_response",
        `${this.baseUrl} answered ${response.status} with something that is not JSON.`,
      );
    }
    if (!response.ok) {
      // `{ "error": { code, message } }` (the daemon, the hub) or problem+json (the backend).
      const body = parsed as {
        error?: { code?: string; message?: string };
        code?: unknown;
        detail?: unknown;
      } | null;
      const problem = {
        code: typeof body?.code === "string" ? body.code : undefined,
        message: typeof body?.detail === "string" ? body.detail : undefined,
      };
      const error = body?.error ?? problem;
      throw new CliError(
        error.code ?? `http_${response.status}`,
        error.message ?? `HTTP ${response.status}`,
        response.status,
      );
    }
    return { status: response.status, body: parse(parsed) };
  }
}
