import { z } from "zod";

/**
 * The hub's side of a daemon's public HTTP API, with the intake token the daemon's operator
 * created for it (`talkide-daemon token create --scope intake`): exactly what any message
 * service pushing deliveries to that daemon may use, nothing more.
 */
export class DaemonClient {
  #baseUrl: string;
  #token: string | null;
  constructor(baseUrl: string, intakeToken: string | null) {
    this.#baseUrl = baseUrl.replace(/\/+$/, "");
    this.#token = intakeToken;
  }

  /** The local loop learns both after the hub started (the daemon starts second). */
  connect(baseUrl: string, intakeToken: string): void {
    this.#baseUrl = baseUrl.replace(/\/+$/, "");
    this.#token = intakeToken;
  }

  /** Pushes one delivery. Resolves when the daemon stored it (or had it already). */
  async deliver(agentId: string, delivery: unknown): Promise<void> {
    const response = await this.#call(
      "POST",
      `/v1/agents/${encodeURIComponent(agentId)}/deliveries`,
      delivery,
    );
    if (response.status === 200 || response.status === 202) return;
    throw await refusalOf(response);
  }

  /** Whether the daemon has an agent with this id. */
  async agentExists(agentId: string): Promise<boolean> {
    const response = await this.#call("GET", `/v1/agents/${encodeURIComponent(agentId)}`);
    if (response.ok) return true;
    if (response.status === 404) return false;
    throw await refusalOf(response);
  }

  /** Asks the daemon whose running turn a turn credential (`TICLAWK_TOKEN` of a turn) is. */
  async verifyTurnCredential(token: string): Promise<TurnCredentialCheck> {
    const response = await this.#call("POST", "/v1/turn-credentials/verify", { token });
    if (!response.ok) throw await refusalOf(response);
    return turnCredentialCheck.parse(await response.json());
  }

  async #call(method: string, path: string, body?: unknown): Promise<Response> {
    if (this.#token === null)
      throw new DaemonUnavailable(
        "No intake token is configured (TALKIDE_HUB_INTAKE_TOKEN); deliveries wait.",
      );
    try {
      return await fetch(`${this.#baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new DaemonUnavailable(`No daemon answers at ${this.#baseUrl}.`, { cause: error });
    }
  }
}

const turnCredentialCheck = z.discriminatedUnion("active", [
  z.object({ active: z.literal(true), agentId: z.string(), turnId: z.string() }),
  z.object({ active: z.literal(false), reason: z.enum(["unknown", "turn_ended"]) }),
]);
export type TurnCredentialCheck = z.infer<typeof turnCredentialCheck>;

/** The daemon refused a request (4xx) with a stable code: retrying would not help. */
export class DaemonRefusal extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "DaemonRefusal";
    this.status = status;
    this.code = code;
  }
}

/** The daemon could not be reached or failed (5xx): worth trying again later. */
export class DaemonUnavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DaemonUnavailable";
  }
}

async function refusalOf(response: Response): Promise<Error> {
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string };
  } | null;
  if (response.status >= 500 || response.status === 401 || response.status === 403) {
    // A bad intake token is the operator's to fix; the deliveries wait for it.
    return new DaemonUnavailable(
      `The daemon at ${response.url} answered ${response.status} ${body?.error?.code ?? ""}: ${body?.error?.message ?? ""}`.trim(),
    );
  }
  return new DaemonRefusal(
    response.status,
    body?.error?.code ?? `http_${response.status}`,
    body?.error?.message ?? `HTTP ${response.status}`,
  );
}
