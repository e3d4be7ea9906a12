import type { Turn } from "./api.ts";

/**
 * One project's conversation as the console holds it: the turns (oldest first) and, per turn
 * still running, the text blocks of Mara's answer that arrived so far. Pure: the event stream
 * and the turn list both go through these functions, in whatever order they arrive.
 */
export interface ChatState {
  readonly turns: readonly Turn[];
  readonly liveText: Readonly<Record<string, readonly string[]>>;
}

export const EMPTY_CHAT: ChatState = { turns: [], liveText: {} };

const FINISHED = new Set<Turn["status"]>(["succeeded", "failed", "stopped"]);

export function isFinished(turn: Pick<Turn, "status">): boolean {
  return FINISHED.has(turn.status);
}

/** How far a turn has got: a turn never goes back, so an older copy never replaces a newer. */
function progress(turn: Turn): number {
  if (turn.status === "queued") return 0;
  if (turn.status === "running") return 1;
  return 2;
}

/** The newer of two copies of one turn (the incoming one when they got equally far). */
function newer(held: Turn | undefined, incoming: Turn): Turn {
  return held !== undefined && progress(held) > progress(incoming) ? held : incoming;
}

function withoutKey(
  record: Readonly<Record<string, readonly string[]>>,
  key: string,
): Record<string, readonly string[]> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
}

/**
 * Merges turns into the state by id (a list loaded after the stream's `ready`, or one turn of
 * a `turn.changed`): a turn already held is replaced unless the held copy got further (the
 * list may have been read before an event that arrived first). A finished turn's answer is
 * its `resultText`, so its streamed blocks are dropped.
 */
export function mergeTurns(state: ChatState, incoming: readonly Turn[]): ChatState {
  if (incoming.length === 0) return state;
  const byId = new Map(state.turns.map((turn) => [turn.id, turn]));
  let liveText = state.liveText;
  for (const turn of incoming) {
    const kept = newer(byId.get(turn.id), turn);
    byId.set(turn.id, kept);
    if (isFinished(kept) && turn.id in liveText) liveText = withoutKey(liveText, turn.id);
  }
  const turns = [...byId.values()].sort((a, b) => a.number - b.number);
  return { turns, liveText };
}

/** One text block of a running turn's answer (`turn.text`); ignored once the turn ended. */
export function appendText(state: ChatState, turnId: string, text: string): ChatState {
  const turn = state.turns.find((t) => t.id === turnId);
  if (turn !== undefined && isFinished(turn)) return state;
  const blocks = state.liveText[turnId] ?? [];
  return { ...state, liveText: { ...state.liveText, [turnId]: [...blocks, text] } };
}

/**
 * The answer to show for a turn: the stored one once it ended, the blocks streamed so far
 * while it runs (a tab opened mid-turn shows the blocks from then on), or null.
 */
export function answerOf(state: ChatState, turn: Turn): string | null {
  if (isFinished(turn)) return turn.resultText;
  const blocks = state.liveText[turn.id];
  return blocks === undefined || blocks.length === 0 ? null : blocks.join("\n\n");
}

/** The turn Mara works on now (the running one), or null. */
export function runningTurn(state: ChatState): Turn | null {
  return state.turns.find((turn) => turn.status === "running") ?? null;
}
