/** A cost in US dollars as the CLI reports it; "unknown" when it did not. */
function formatUsd(value: number | null): string {
  return value === null ? "unknown" : `$${value.toFixed(4)}`;
}

/**
 * Said beside every cost of a turn the local demo model answered (the service runs without
 * ANTHROPIC_API_KEY): the CLI still prices the tokens, but nobody pays them.
 */
export const DEMO_COST_NOTE = "not real money — local demo model";

/**
 * A turn's cost line: `cost $0.0498 (session total $0.0996)`, followed by the demo note when
 * the local demo model answered.
 */
export function formatTurnCost(turn: {
  readonly costUsd: number | null;
  readonly cumulativeCostUsd: number | null;
  readonly demoModel: boolean;
}): string {
  const total =
    turn.cumulativeCostUsd === null ? "" : ` (session total ${formatUsd(turn.cumulativeCostUsd)})`;
  const note = turn.demoModel ? ` · ${DEMO_COST_NOTE}` : "";
  return `cost ${formatUsd(turn.costUsd)}${total}${note}`;
}

export function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} B`;
}
