/**
 * The events of a turn, as clients see them (stored in turn_events, streamed over SSE): the
 * names and payloads are `@talkide/be-api`'s TURN_EVENTS. A turn ends with exactly one
 * terminal event, turn.succeeded or turn.failed. `agent.text` is only ever the model's words:
 * the runtime's own error text never becomes one.
 */
import type { EventPayload, StoredTurnEvent, TurnEvent, TurnEventName } from "@talkide/be-api";

export type { StoredTurnEvent, TurnEvent } from "@talkide/be-api";

type Listener = (event: StoredTurnEvent) => void;

/** Where a turn's steps send their events: only a name of the contract, with its payload. */
export interface TurnEmitter {
  emit<N extends TurnEventName>(type: N, data: EventPayload<N>): unknown;
}

/**
 * Events held back until what must come before them is emitted, then passed on in order: the
 * steps before a turn's `turn.started` (session reset, context written, …) wait for it, since
 * clients read the process from `turn.started` and the decision needs the rendered context;
 * the agent's events wait for the port report, which finishes while the CLI works.
 */
export class HeldEvents implements TurnEmitter {
  /** Each held event as the call that emits it into the target. */
  private readonly held: Array<(target: TurnEmitter) => void> = [];
  private target: TurnEmitter | null = null;

  emit<N extends TurnEventName>(type: N, data: EventPayload<N>): void {
    if (this.target === null) this.held.push((target) => target.emit(type, data));
    else this.target.emit(type, data);
  }

  /** Emits what was held, in order, into `live`; later events go straight there. */
  releaseTo(live: TurnEmitter): void {
    this.target = live;
    for (const emitHeld of this.held.splice(0)) emitHeld(live);
  }
}

/**
 * A turn that is queued or running. Its events live in memory until the turn is finished
 * and every event is stored, so a subscriber gets the whole history and then each new event
 * with no gap and no duplicate, whenever it subscribes.
 */
export class LiveTurn {
  readonly turnId: string;
  readonly events: StoredTurnEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly detachers = new Set<() => void>();
  private persisted: Promise<void> = Promise.resolve();
  /** Emitted, not yet handed to `persist`: they go together, in order, in the next batch. */
  private unstored: TurnEvent[] = [];
  private readonly persist: (events: readonly TurnEvent[]) => Promise<void>;

  /**
   * `stored`: the turn's events already in the database (written before this instance saw it).
   * `persist` stores a batch of events in order; batches are stored one after another.
   */
  constructor(
    turnId: string,
    persist: (events: readonly TurnEvent[]) => Promise<void>,
    stored: readonly StoredTurnEvent[] = [],
  ) {
    this.turnId = turnId;
    this.persist = persist;
    this.events.push(...stored);
  }

  emit<N extends TurnEventName>(type: N, data: EventPayload<N>): TurnEvent {
    // TypeScript cannot tie `type` to `data` through a union of names; the signature does.
    const event = { seq: this.events.length + 1, type, data } as TurnEvent;
    this.events.push(event);
    this.unstored.push(event);
    // Listeners hear it now; storage follows. Events emitted while a batch is being stored
    // wait and go together in the next one: a burst costs one write, not one per event.
    if (this.unstored.length === 1) {
      this.persisted = this.persisted.then(() => this.persist(this.unstored.splice(0)));
    }
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /**
   * Replays every event so far to `listener`, then forwards new ones; `onDetach` is called
   * when this instance stops following the turn before its end (it shuts down while the turn
   * waits in the queue: the client reconnects elsewhere). Returns unsubscribe.
   */
  subscribe(listener: Listener, onDetach: () => void = () => undefined): () => void {
    for (const event of this.events) listener(event);
    this.listeners.add(listener);
    this.detachers.add(onDetach);
    return () => {
      this.listeners.delete(listener);
      this.detachers.delete(onDetach);
    };
  }

  detach(): void {
    for (const onDetach of this.detachers) onDetach();
    this.detachers.clear();
    this.listeners.clear();
  }

  /** Resolves when every event emitted so far is stored. */
  flushed(): Promise<void> {
    return this.persisted;
  }
}

export class TurnEventHub {
  private readonly live = new Map<string, LiveTurn>();
  private readonly waiting = new Map<string, Set<(turn: LiveTurn) => void>>();

  open(
    turnId: string,
    persist: (events: readonly TurnEvent[]) => Promise<void>,
    stored: readonly StoredTurnEvent[] = [],
  ): LiveTurn {
    const turn = new LiveTurn(turnId, persist, stored);
    this.live.set(turnId, turn);
    const waiting = this.waiting.get(turnId);
    this.waiting.delete(turnId);
    for (const onOpen of waiting ?? []) onOpen(turn);
    return turn;
  }

  /**
   * Calls `onOpen` when this instance starts running the turn (at once when it already
   * does): a stream that followed the turn through the database can then take its events
   * from memory, as they happen. Returns a function that cancels the wait.
   */
  whenOpen(turnId: string, onOpen: (turn: LiveTurn) => void): () => void {
    const open = this.live.get(turnId);
    if (open !== undefined) {
      onOpen(open);
      return () => undefined;
    }
    const waiting = this.waiting.get(turnId) ?? new Set();
    waiting.add(onOpen);
    this.waiting.set(turnId, waiting);
    return () => {
      waiting.delete(onOpen);
      if (waiting.size === 0 && this.waiting.get(turnId) === waiting) this.waiting.delete(turnId);
    };
  }

  get(turnId: string): LiveTurn | undefined {
    return this.live.get(turnId);
  }

  close(turnId: string): void {
    this.live.delete(turnId);
  }

  /** Ends every stream this instance still follows (at shutdown): see LiveTurn.detach. */
  detachAll(): void {
    for (const turn of this.live.values()) turn.detach();
    this.live.clear();
    this.waiting.clear();
  }
}
