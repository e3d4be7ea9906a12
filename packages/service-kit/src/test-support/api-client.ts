export interface ApiResponse<T> {
  readonly status: number;
  readonly body: T;
}

/**
 * A small client of a service's HTTP API for tests: any method, path and body (or raw bytes),
 * with the bearer token it was made with unless a call names another one (or `null`: none).
 */
export class ApiClient {
  readonly url: string;
  readonly token: string;
  constructor(url: string, token: string) {
    this.url = url;
    this.token = token;
  }

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options: {
      readonly token?: string | null;
      readonly rawBody?: string | Uint8Array;
      readonly contentType?: string;
    } = {},
  ): Promise<ApiResponse<T>> {
    const token = options.token === undefined ? this.token : options.token;
    const headers: Record<string, string> = {};
    if (token !== null) headers["authorization"] = `Bearer ${token}`;
    const payload = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers["content-type"] = options.contentType ?? "application/json";
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? null : JSON.parse(text)) as T };
  }
}
