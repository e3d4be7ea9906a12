import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Attribution } from "./store.ts";

/** Which turn a process runs now: what its requests are attributed to. */
export interface TurnAttachment {
  readonly turnId: string;
  /** The member the turn is for: the user limits apply to them. */
  readonly userKey: string | null;
  /** The host's session the turn continues (its own key, not the CLI's session id). */
  readonly sessionKey?: string | null;
}

/**
 * What one `claude` process gets instead of the provider's credential: a random token that
 * only this gateway accepts, for as long as the process lives.
 */
export interface GatewayCredential {
  /** The token (`tkgw_` + 43 base64url characters); never the provider's key. */
  readonly token: string;
  /** The variables the process needs: the gateway's URL and the token as its API key. */
  readonly env: { readonly ANTHROPIC_BASE_URL: string; readonly ANTHROPIC_API_KEY: string };
  /** The process now runs this turn: its requests count for it (and its member's limits). */
  attach(turn: TurnAttachment): void;
  /** The turn ended; requests until the next `attach` count for the project only. */
  detach(): void;
  /** The process ended: the token is refused from now on (401). Idempotent. */
  revoke(): void;
  readonly revoked: boolean;
}

interface Entry {
  readonly digest: Buffer;
  readonly projectKey: string;
  turn: TurnAttachment | null;
}

const TOKEN_PREFIX = "tkgw_";

function digestOf(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/**
 * The tokens of the live processes. A presented token is looked up by its sha256 (so the map
 * lookup reveals nothing about the token itself) and then compared with the stored digest in
 * constant time.
 */
export class CredentialRegistry {
  readonly #entries = new Map<string, Entry>();

  issue(projectKey: string, baseUrl: string): GatewayCredential {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
    const digest = digestOf(token);
    const id = digest.toString("hex");
    const entry: Entry = { digest, projectKey, turn: null };
    this.#entries.set(id, entry);
    let revoked = false;
    return {
      token,
      env: { ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: token },
      attach: (turn) => {
        entry.turn = { ...turn };
      },
      detach: () => {
        entry.turn = null;
      },
      revoke: () => {
        revoked = true;
        this.#entries.delete(id);
      },
      get revoked() {
        return revoked;
      },
    };
  }

  /** Who a presented token belongs to right now; null for an unknown or revoked one. */
  attributionOf(presented: string | null): Attribution | null {
    if (presented === null || !presented.startsWith(TOKEN_PREFIX)) return null;
    const digest = digestOf(presented);
    const entry = this.#entries.get(digest.toString("hex"));
    if (entry === undefined || !timingSafeEqual(entry.digest, digest)) return null;
    return {
      projectKey: entry.projectKey,
      userKey: entry.turn?.userKey ?? null,
      turnId: entry.turn?.turnId ?? null,
      sessionKey: entry.turn?.sessionKey ?? null,
    };
  }

  /** Live tokens (for tests and the operator's view). */
  get size(): number {
    return this.#entries.size;
  }
}

/** The credential a request presents: `x-api-key`, or `authorization: Bearer …`. */
export function presentedToken(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | null {
  const apiKey = headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey !== "") return apiKey;
  const auth = headers["authorization"];
  if (typeof auth === "string") {
    const match = /^Bearer\s+(\S+)$/i.exec(auth);
    if (match?.[1] !== undefined) return match[1];
  }
  return null;
}
