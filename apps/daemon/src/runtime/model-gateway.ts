import {
  startGateway,
  type Gateway,
  type GatewaySettings,
  type MissNamer,
  type ProviderCredential,
} from "@talkide/gateway";
import { ConfigError, type Logger } from "@talkide/service-kit";
import type { DaemonDb } from "../db/schema.ts";

/** Where the agents' model requests go when `ANTHROPIC_BASE_URL` names nothing else. */
export const ANTHROPIC_API_URL = "https://api.anthropic.com";

/**
 * The variables Claude Code reads a provider credential from. None of them reaches an agent
 * (`agent-env.ts` withholds them): the gateway holds the credential, and every process gets
 * a token of its own instead.
 */
export const PROVIDER_CREDENTIAL_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
];

/** The provider the gateway forwards to, and the credential it sends there. */
export interface ModelProvider {
  readonly upstreamUrl: string;
  readonly credential: ProviderCredential;
}

/**
 * The provider of the daemon's environment (issue 51): `ANTHROPIC_API_KEY` (sent as
 * `x-api-key`), else `ANTHROPIC_AUTH_TOKEN` (sent as `Authorization: Bearer`), to
 * `ANTHROPIC_BASE_URL` or the Anthropic API. Null without either: the CLI then uses what it is
 * logged in with in its config dir, and no request goes through the gateway.
 *
 * `CLAUDE_CODE_OAUTH_TOKEN` is refused. The gateway could send it as a bearer, but the CLI
 * shapes its requests by the credential it holds, and a process holding a gateway token is an
 * API-key client: measured with 2.1.337 against the fake Messages API, an OAuth token makes
 * the CLI add the `oauth-2025-04-20` beta (which the provider requires with such a token),
 * write its cache for one hour and pick another default model. Through the gateway none of
 * that would happen, so the requests would be refused, or differ from what the CLI sends.
 */
export function modelProviderOf(
  env: Readonly<Record<string, string | undefined>>,
): ModelProvider | null {
  const given = (name: string): string | null => {
    const value = env[name] ?? "";
    return value === "" ? null : value;
  };
  if (given("CLAUDE_CODE_OAUTH_TOKEN") !== null) {
    throw new ConfigError(
      [
        {
          variable: "CLAUDE_CODE_OAUTH_TOKEN",
          message:
            "the model gateway gives each agent's Claude Code a token of its own, and Claude Code sends a subscription's OAuth token with requests of another shape (its own beta, cache lifetime and model), which the gateway cannot reproduce. Give an API key as ANTHROPIC_API_KEY (or a proxy's token as ANTHROPIC_AUTH_TOKEN), or log Claude Code in in its config dir (TALKIDE_CLAUDE_CONFIG_DIR; then no gateway runs), and unset CLAUDE_CODE_OAUTH_TOKEN",
        },
      ],
      "apps/daemon/README.md",
    );
  }
  const apiKey = given("ANTHROPIC_API_KEY");
  const authToken = given("ANTHROPIC_AUTH_TOKEN");
  if (apiKey === null && authToken === null) return null;
  const upstreamUrl = given("ANTHROPIC_BASE_URL") ?? ANTHROPIC_API_URL;
  if (!/^https?:$/.test(urlProtocol(upstreamUrl))) {
    throw new ConfigError(
      [
        {
          variable: "ANTHROPIC_BASE_URL",
          message:
            "must be an http:// or https:// URL (the model provider the gateway forwards to)",
        },
      ],
      "apps/daemon/README.md",
    );
  }
  return {
    upstreamUrl,
    credential: apiKey !== null ? { apiKey } : { authToken: authToken ?? "" },
  };
}

function urlProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}

/** The project a turn's requests count for: the agent (its workspace, its conversations). */
export function agentProjectKey(agentId: string): string {
  return `agent:${agentId}`;
}

/**
 * The user a turn's requests count for: the sender of the message that woke the agent (a
 * person by their user id, another agent by its id); null for a system message (the agent's
 * limits apply alone).
 */
export function senderUserKey(sender: {
  readonly sender_type: string;
  readonly sender_user_id: string | null;
  readonly sender_agent_id: string | null;
}): string | null {
  if (sender.sender_type === "human" && sender.sender_user_id !== null)
    return `user:${sender.sender_user_id}`;
  if (sender.sender_type === "agent" && sender.sender_agent_id !== null)
    return `agent:${sender.sender_agent_id}`;
  return null;
}

/**
 * Why a request missed the prompt cache, in the daemon's terms. A new session gets its reason
 * from the turn (`newSessionPhrase`), which knows why the conversation started one.
 */
export const daemonMissPhrase: MissNamer = (miss) => {
  switch (miss.reason) {
    case "new_session":
      return "a new session: its whole prompt is written to the cache";
    case "tools_changed":
      return "Claude Code's tools changed (their sandbox description names every agent's workspace: an agent was registered, or Claude Code was upgraded)";
    case "system_changed":
      return "the system prompt changed (Claude Code's own part of it)";
    case "messages_changed":
      return "an earlier message of the session differs from the cached one";
    case "ttl_expired":
      return "the prompt cache expired: the conversation was idle longer than its lifetime (TALKIDE_PROMPT_CACHE_TTL)";
    case "prefix_kept":
      return null;
  }
};

/** Starts the daemon's gateway on loopback in front of `provider`, storing in `db`. */
export function startModelGateway(options: {
  readonly provider: ModelProvider;
  readonly db: DaemonDb;
  readonly settings: GatewaySettings;
  readonly logger: Logger;
}): Promise<Gateway> {
  return startGateway({
    upstreamUrl: options.provider.upstreamUrl,
    credential: options.provider.credential,
    db: options.db,
    limits: options.settings.limits,
    prices: options.settings.prices,
    logger: options.logger.child({ component: "gateway" }),
    nameMiss: daemonMissPhrase,
    // The gateway's project is an agent here (model-gateway.ts's keys).
    projectNoun: "agent",
  });
}
