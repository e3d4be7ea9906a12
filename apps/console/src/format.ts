/** A cost in US dollars as the CLI reports it; "unknown" when it did not. */
export function formatUsd(value: number | null): string {
  return value === null ? "unknown" : `$${value.toFixed(4)}`;
}

export function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} B`;
}
