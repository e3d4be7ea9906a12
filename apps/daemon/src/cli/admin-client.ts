import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ADMIN_TOKEN_FILE } from "../data-dir.ts";

/** A failure the CLI reports in one line and exits 1 with. */
export class CliError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "CliError";
    this.code = code;
  }
}

/**
 * Talks to a running daemon's HTTP API with the admin token. The embedded database belongs
 * to the daemon process alone, so the CLI never opens it: every command goes through the API.
 */
export class AdminClient {
  readonly baseUrl: string;
  readonly #token: string;
  constructor(baseUrl: string, token: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#token = token;
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
      throw new CliError(
        "daemon_unreachable",
        `No daemon answers at ${this.baseUrl}. Start it with: talkide-daemon start (or pass --url).`,
      );
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
      const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
      throw new CliError(
        error?.code ?? `http_${response.status}`,
        error?.message ?? `HTTP ${response.status}`,
      );
    }
    return { status: response.status, body: parse(parsed) };
  }
}

/** The token from --token, then TALKIDE_ADMIN_TOKEN, then the daemon's data directory. */
export async function resolveAdminToken(options: {
  readonly token: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly dataDir: string;
}): Promise<string> {
  if (options.token !== undefined && options.token !== "") return options.token;
  const fromEnv = options.env["TALKIDE_ADMIN_TOKEN"];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv.trim();
  const path = join(options.dataDir, ADMIN_TOKEN_FILE);
  const fromFile = (await readFile(path, "utf8").catch(() => "")).trim();
  if (fromFile !== "") return fromFile;
  throw new CliError(
    "no_admin_token",
    `No admin token: ${path} does not exist yet (the daemon writes it on first start). Start the daemon, or pass --token.`,
  );
}
