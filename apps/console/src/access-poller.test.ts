import { describe, expect, it } from "vitest";
import { startAccessPoller, type PollerEnvironment } from "./access-poller.ts";

/** A hand-driven clock and visibility, so each tick is a step of the test. */
function fakeEnvironment(): PollerEnvironment & {
  visible: boolean;
  tick: () => void;
  cleared: number[];
} {
  let tick: () => void = () => undefined;
  const env = {
    visible: true,
    cleared: [] as number[],
    isVisible: () => env.visible,
    setInterval: (run: () => void) => {
      tick = run;
      return 7;
    },
    clearInterval: (id: number) => {
      env.cleared.push(id);
    },
    tick: () => {
      tick();
    },
  };
  return env;
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe("startAccessPoller", () => {
  it("checks on each tick while the page is visible, never while it is hidden", async () => {
    const env = fakeEnvironment();
    let checks = 0;
    startAccessPoller(
      () => {
        checks++;
        return Promise.resolve();
      },
      2_000,
      env,
    );
    env.tick();
    await settle();
    env.visible = false;
    env.tick();
    await settle();
    env.visible = true;
    env.tick();
    await settle();
    expect(checks).toBe(2);
  });

  it("runs one check at a time: a slow answer is not asked again", async () => {
    const env = fakeEnvironment();
    let checks = 0;
    let answer: () => void = () => undefined;
    startAccessPoller(
      () =>
        new Promise<void>((resolve) => {
          checks++;
          answer = resolve;
        }),
      2_000,
      env,
    );
    env.tick();
    env.tick();
    expect(checks).toBe(1);
    answer();
    await settle();
    env.tick();
    expect(checks).toBe(2);
  });

  it("keeps polling after a failed check, and stops when told", async () => {
    const env = fakeEnvironment();
    let checks = 0;
    const stop = startAccessPoller(() => Promise.reject(new Error(String(++checks))), 2_000, env);
    env.tick();
    await settle();
    env.tick();
    await settle();
    expect(checks).toBe(2);
    stop();
    expect(env.cleared).toEqual([7]);
  });
});
