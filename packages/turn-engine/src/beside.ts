/**
 * Where a turn's stages send their events: the host's emitter (`E`: the backend's turn stream,
 * the daemon's event bus) and a holder for events that must wait for others.
 */
export interface TurnEvents<E> {
  /** Where events go now. */
  readonly live: E;
  /** A holder: takes events now and passes them on, in order, when released. */
  hold(): HeldEvents<E>;
}

export type HeldEvents<E> = E & { releaseTo(target: E): void };

/** A stage of the turn: what it reports goes to `events`. */
export type Stage<E, T> = (events: E) => Promise<T>;

type Results<S> = { -readonly [K in keyof S]: S[K] extends Stage<never, infer T> ? T : never };

/**
 * Named stages that run side by side for speed: started in the order given and all awaited
 * (none runs on after the call returns; the first failure in that order is thrown once every
 * stage has settled). What they report reaches `events.live` in the order of `reportOrder`, as
 * if they had run one after the other: a listed stage's events wait until the stages listed
 * before it have finished. A stage not listed reports as it goes.
 */
export async function beside<E, S extends Record<string, Stage<E, unknown>>>(
  events: TurnEvents<E>,
  stages: S,
  reportOrder: readonly string[] = [],
): Promise<Results<S>> {
  const listed = reportOrder.filter((name) => name in stages);
  const emitters = new Map<string, HeldEvents<E>>(
    listed.slice(1).map((name) => [name, events.hold()]),
  );
  const settled: ReadonlyMap<string, Promise<Settled>> = new Map(
    Object.entries(stages).map(([name, stage]) => [
      name,
      settle(() => stage(emitters.get(name) ?? events.live)),
    ]),
  );
  // Each held stage's events go live once every stage reported before it has finished.
  const releases: Array<Promise<void>> = [];
  for (const [index, name] of listed.entries()) {
    const held = emitters.get(name);
    if (held === undefined) continue;
    const before = listed.slice(0, index).flatMap((earlier) => settled.get(earlier) ?? []);
    releases.push(
      Promise.all(before).then(() => {
        held.releaseTo(events.live);
      }),
    );
  }
  const outcomes = await Promise.all(settled.values());
  await Promise.all(releases);
  const failure = outcomes.find((outcome) => !outcome.ok);
  if (failure !== undefined) throw failure.error;
  return Object.fromEntries(
    [...settled.keys()].map((name, index) => [name, (outcomes[index] as { value: unknown }).value]),
  ) as Results<S>;
}

type Settled =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

function settle(start: () => Promise<unknown>): Promise<Settled> {
  // A stage that throws before its first await is a failed stage like any other.
  return Promise.resolve()
    .then(start)
    .then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
}
