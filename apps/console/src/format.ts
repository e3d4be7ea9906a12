export function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} B`;
}

/**
 * A turn's input tokens as the CLI reported them, split by the prompt cache, and the session's
 * cache reuse so far: `in 1,234 · cache write 3,456 · cache read 12,345 · reuse 78%`; null
 * when the turn reported none (queued, running, or recorded before tokens were).
 */
export function formatTurnTokens(turn: {
  readonly usage: {
    readonly inputTokens: number;
    readonly cacheCreationInputTokens: number;
    readonly cacheReadInputTokens: number;
  } | null;
  readonly sessionCacheReuse: number | null;
}): string | null {
  const { usage } = turn;
  if (usage === null) return null;
  const count = (tokens: number): string => tokens.toLocaleString("en-US");
  const reuse =
    turn.sessionCacheReuse === null ? "" : ` · reuse ${Math.round(turn.sessionCacheReuse * 100)}%`;
  return `in ${count(usage.inputTokens)} · cache write ${count(usage.cacheCreationInputTokens)} · cache read ${count(usage.cacheReadInputTokens)}${reuse}`;
}

/**
 * What a CLI fallback during the turn means for the session, in one line; null when there was
 * none. The session continues on purpose (a new one would pay a whole prefix write and meet
 * the same refusal), so the line says what it costs from now on.
 */
export function formatCliFallback(turn: {
  readonly cliFallback: "tool_search_off" | null;
}): string | null {
  if (turn.cliFallback === null) return null;
  return "The model gateway refused deferred tools, so Claude Code turned tool search off: every later turn of this conversation sends about 8,100 more input tokens.";
}

/** A moment of the API (ISO 8601) in the reader's own locale and time zone. */
export function formatWhen(iso: string): string {
  return new Date(iso).toLocaleString();
}
