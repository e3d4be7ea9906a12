/**
 * The optional capabilities of a hub (contract 4.1): what only some hubs serve. The standing
 * prompt tells the agent about one exactly when the connected hub serves it, so an agent is
 * never told to run a command that answers "not supported".
 */
import { PromptParameterError } from "../text/parameters.ts";

export const STANDING_CAPABILITIES = ["reminders", "services"] as const;

export type StandingCapability = (typeof STANDING_CAPABILITIES)[number];

function isCapability(value: unknown): value is StandingCapability {
  return (STANDING_CAPABILITIES as readonly unknown[]).includes(value);
}

/**
 * The capability set from a parameter value: absent means none; otherwise an array of known
 * names, in any order and with any repetition (the set is what counts). Anything else throws
 * `PromptParameterError` at `capabilities` or at its first bad element.
 */
export function checkCapabilities(value: unknown): ReadonlySet<StandingCapability> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value)) {
    throw new PromptParameterError("invalid_field", "capabilities", "must be an array of names");
  }
  const bad = (value as unknown[]).findIndex((element) => !isCapability(element));
  if (bad >= 0) {
    throw new PromptParameterError(
      "invalid_field",
      `capabilities[${String(bad)}]`,
      `must be one of ${STANDING_CAPABILITIES.join(", ")}`,
    );
  }
  return new Set(value as StandingCapability[]);
}
