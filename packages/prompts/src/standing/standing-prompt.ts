/**
 * The standing prompt: the system prompt appended to every agent turn of the daemon (contract
 * 4.1). It depends on the brand and CLI names and on the capability set of the hub, and on
 * nothing else, so every turn of every agent gets the same bytes, and a session can be pinned
 * to it by its hash.
 */
import { createHash } from "node:crypto";
import {
  checkBrand,
  checkCli,
  DEFAULT_BRAND,
  DEFAULT_CLI,
  PromptParameterError,
} from "../text/parameters.ts";
import { checkCapabilities, type StandingCapability } from "./capabilities.ts";
import { STANDING_PROMPT_TEMPLATE } from "./standing-prompt-template.generated.ts";

export interface StandingPromptParameters {
  /** The platform's name as the agent reads it, e.g. `Ticlawk`. */
  readonly brand: string;
  /** The command the agent runs to talk to the platform, e.g. `ticlawk`. */
  readonly cli: string;
  /**
   * What the connected hub serves beyond messages, groups, charters and tasks; none when
   * absent. Order and repetition do not matter.
   */
  readonly capabilities?: readonly StandingCapability[];
}

/**
 * Builds the standing prompt. Only `brand`, `cli` and `capabilities` are read; anything else a
 * caller passes along (an agent id, a delivery) is ignored by construction. Throws
 * `PromptParameterError` when a name is missing or outside its charset, or a capability is
 * unknown.
 */
export function buildStandingPrompt(parameters: StandingPromptParameters): string {
  if (typeof parameters !== "object" || (parameters as unknown) === null) {
    throw new PromptParameterError("invalid_field", "", "expected { brand, cli, capabilities }");
  }
  const brand = checkBrand(parameters.brand);
  const cli = checkCli(parameters.cli);
  const capabilities = checkCapabilities(parameters.capabilities);
  return fillTemplate(brand, cli, capabilities);
}

/** A capability's part of the template: its block lines produce no output. */
const CAPABILITY_PART = /\{\{#each ([a-z]+)-capability\}\}\n([\s\S]*?)\{\{\/each\}\}\n/g;
const PLACEHOLDER = /\{\{(brand|cli)\}\}/g;

/**
 * The spec's template with a capability's part kept exactly when the hub serves it, then every
 * placeholder replaced in one pass (so a value is never read as template text). The names'
 * charsets keep `{{` out of them anyway.
 */
function fillTemplate(
  brand: string,
  cli: string,
  capabilities: ReadonlySet<StandingCapability>,
): string {
  const withParts = STANDING_PROMPT_TEMPLATE.replace(
    CAPABILITY_PART,
    (_part, name: string, text: string) =>
      capabilities.has(name as StandingCapability) ? text : "",
  );
  return withParts.replace(PLACEHOLDER, (_placeholder, key: string) =>
    key === "brand" ? brand : cli,
  );
}

/** The version of a standing prompt: the SHA-256 of its UTF-8 bytes, as lower-case hex. */
export function standingPromptVersion(prompt: string): string {
  return createHash("sha256").update(prompt, "utf8").digest("hex");
}

/**
 * The standing prompt for brand `Ticlawk`, CLI `ticlawk` and no optional capability: what the
 * daemon's local hub serves.
 */
export const STANDING_PROMPT = buildStandingPrompt({ brand: DEFAULT_BRAND, cli: DEFAULT_CLI });

/** `standingPromptVersion(STANDING_PROMPT)`; the daemon pins sessions to it. */
export const STANDING_PROMPT_VERSION = standingPromptVersion(STANDING_PROMPT);
