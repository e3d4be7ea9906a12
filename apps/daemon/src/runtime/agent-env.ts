import { delimiter } from "node:path";
import { launchEnv, type PromptCacheTtl } from "@talkide/claude-cli";
import { TURN_ENV_FILE_VARIABLE } from "./turn-env-file.ts";

/**
 * The environment of one turn's child process.
 *
 * It starts from the daemon's own environment (the runtime needs HOME, locale, …) minus the
 * daemon's secrets and the model provider's credential (the model gateway holds it; each
 * process gets the gateway's URL and a token of its own, `model-gateway.ts`), then adds the
 * turn's identity. Variable names
 * are part of the agent-facing contract (the `ticlawk` CLI reads them):
 *
 * | variable                  | value                                                        |
 * |---------------------------|--------------------------------------------------------------|
 * | `TICLAWK_AGENT_ID`        | the agent the message was delivered to                       |
 * | `TICLAWK_SESSION_ID`      | the daemon's session id of (agent, conversation)             |
 * | `TICLAWK_HOST_ID`         | this daemon's host id                                        |
 * | `TICLAWK_CONVERSATION_ID` | the conversation of the message                              |
 * | `TICLAWK_MESSAGE_ID`      | the message that woke the agent                              |
 * | `TICLAWK_TARGET`          | the reply target, exactly as shown in the wake prompt        |
 * | `TICLAWK_TURN_ID`         | this turn                                                    |
 * | `TICLAWK_DAEMON_URL`      | the daemon's base URL                                        |
 * | `TICLAWK_TURN_ENV_FILE`   | the session's file of the current turn's values (see below)  |
 *
 * A conversation's Claude Code process may be kept alive for its next turns (issue 15): its
 * environment then names the turn that started it. The marker the daemon finds a turn's
 * processes by is not among these: it is `TALKIDE_TURN_ID`, the one name both apps use
 * (`TURN_MARKER_VARIABLE` of `@talkide/claude-cli`), which the engine adds when it starts a
 * process. `TICLAWK_TURN_ID` stays what an agent reads (up to 0.2.x it was also the marker).
 * The values that change per turn (`PER_TURN_VARIABLES` and
 * the extensions' variables) are written for each turn to `TICLAWK_TURN_ENV_FILE`, which the
 * `ticlawk` wrapper sources.
 *
 * PATH starts with the directory holding the daemon's `ticlawk` wrapper. Last, as for every
 * host (`launchEnv` of @talkide/claude-cli): the daemon's own Claude config dir (never the
 * operator's `~/.claude`, whose CLAUDE.md, rules and settings would reach every agent), no
 * auto memory, no git status, and the configured prompt-cache lifetime.
 */
export interface TurnIdentity {
  readonly agentId: string;
  readonly sessionId: string;
  readonly hostId: string;
  readonly conversationId: string;
  readonly messageId: string;
  readonly target: string;
  readonly turnId: string;
  readonly daemonUrl: string;
  /** Where the session's current-turn values are written (stable for the session). */
  readonly turnEnvFile: string;
}

/** The identity variables that change with every turn of a conversation. */
export const PER_TURN_VARIABLES: readonly string[] = [
  "TICLAWK_MESSAGE_ID",
  "TICLAWK_TARGET",
  "TICLAWK_TURN_ID",
];

/** Daemon secrets and settings that an agent (which can run any shell command) must not see. */
const WITHHELD: readonly RegExp[] = [
  // The provider's credential (PROVIDER_CREDENTIAL_VARIABLES): only the gateway holds it.
  /^(ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|CLAUDE_CODE_OAUTH_TOKEN)$/,
  /^DATABASE_URL$/,
  /^TALKIDE_ADMIN_TOKEN$/,
  /^TALKIDE_DAEMON_/,
  /^TICLAWK_/,
  /^PG(PASSWORD|USER|HOST|PORT|DATABASE)$/,
];

export function buildAgentEnv(options: {
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly ticlawkBinDir: string;
  readonly turn: TurnIdentity;
  readonly extra?: Readonly<Record<string, string>>;
  readonly claudeConfigDir: string;
  readonly promptCacheTtl: PromptCacheTtl;
}): Record<string, string> {
  const own: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.extra ?? {})) {
    // Extensions add their own variables; the turn's identity and PATH stay the daemon's.
    if (key === "PATH" || key in turnVariables(options.turn)) continue;
    own[key] = value;
  }
  const inheritedPath = (options.baseEnv["PATH"] ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && dir !== options.ticlawkBinDir);
  own["PATH"] = [options.ticlawkBinDir, ...inheritedPath].join(delimiter);
  Object.assign(own, turnVariables(options.turn));
  return launchEnv({
    inherit: { parentEnv: options.baseEnv, names: "all", withheld: WITHHELD },
    hostEnv: own,
    configDir: options.claudeConfigDir,
    tmpDir: null,
    quiet: false,
    promptCacheTtl: options.promptCacheTtl,
  });
}

function turnVariables(turn: TurnIdentity): Record<string, string> {
  return {
    TICLAWK_AGENT_ID: turn.agentId,
    TICLAWK_SESSION_ID: turn.sessionId,
    TICLAWK_HOST_ID: turn.hostId,
    TICLAWK_CONVERSATION_ID: turn.conversationId,
    TICLAWK_MESSAGE_ID: turn.messageId,
    TICLAWK_TARGET: turn.target,
    TICLAWK_TURN_ID: turn.turnId,
    TICLAWK_DAEMON_URL: turn.daemonUrl,
    [TURN_ENV_FILE_VARIABLE]: turn.turnEnvFile,
  };
}
