import { Writable } from "node:stream";
import { join } from "node:path";
import { EVENT_NAMES, eventNamesOn, RETIRED_EVENT_NAMES, type EventNameOn } from "@talkide/be-api";
import { STANDING_PROMPT } from "@talkide/prompts";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { createLogger } from "@talkide/service-kit";
import {
  makeDelivery,
  makeTempDir,
  perMessageEnv,
  removeDir,
  startTestDaemon,
  waitFor,
  type TestDaemon,
} from "../test-support/harness.ts";
import type { DaemonEvent, DaemonEventType } from "./bus.ts";

const SECRET_TEXT = "the launch code is 0000 — never log this";
const failing = makeDelivery({ conversation_id: "c-events", text: SECRET_TEXT });

let dir: string;
let td: TestDaemon;
const logLines: string[] = [];

beforeAll(async () => {
  dir = await makeTempDir();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(
        ...chunk
          .toString("utf8")
          .split("\n")
          .filter((l) => l !== ""),
      );
      done();
    },
  });
  td = await startTestDaemon({
    dataDir: dir,
    logger: createLogger("talkide-daemon", "debug", sink),
    extensions: [
      perMessageEnv(new Map([[String(failing["id"]), { FAKE_CLAUDE_SCENARIO: "crash" }]])),
    ],
  });
  await td.api.registerAgent("ivy", join(dir, "ws"));
});

afterAll(async () => {
  await td.stop();
  await removeDir(dir);
});

/** Subscribes to the SSE stream and collects parsed events until `close()`. */
async function subscribe(): Promise<{
  events: { name: string; data: DaemonEvent }[];
  close: () => void;
}> {
  const controller = new AbortController();
  const response = await fetch(`${td.api.url}/v1/events`, {
    headers: { authorization: `Bearer ${td.api.token}` },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  const events: { name: string; data: DaemonEvent }[] = [];
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  void (async () => {
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) return;
        buffer += chunk.value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.+)$/m.exec(frame)?.[1];
          const data = /^data: (.+)$/m.exec(frame)?.[1];
          if (name !== undefined && data !== undefined)
            events.push({ name, data: JSON.parse(data) as DaemonEvent });
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    close: () => {
      controller.abort();
    },
  };
}

describe("events", () => {
  it("refuses the stream without a token", async () => {
    expect((await td.api.call("GET", "/v1/events", undefined, { token: null })).status).toBe(401);
  });

  it("streams a turn's start and finish, and a failure with its reason", async () => {
    const stream = await subscribe();
    try {
      const ok = await td.api.deliver("ivy", makeDelivery({ conversation_id: "c-events" }));
      await td.api.settled([ok.body.delivery.id]);
      const bad = await td.api.deliver("ivy", failing);
      await td.api.settled([bad.body.delivery.id]);

      const forDelivery = (id: string) =>
        stream.events.filter((e) => "deliveryId" in e.data && e.data.deliveryId === id);
      await waitFor(
        () => Promise.resolve(forDelivery(bad.body.delivery.id).length >= 5 ? true : null),
        "events",
      );
      const okEvents = forDelivery(ok.body.delivery.id);
      // `turn.finished` follows `turn.succeeded` until 0.4.0 (the name of 0.2.x).
      expect(okEvents.map((e) => e.name)).toEqual([
        "delivery.accepted",
        "turn.started",
        "turn.process",
        "turn.succeeded",
        "turn.finished",
        "delivery.completed",
      ]);
      expect(okEvents.every((e) => e.name === e.data.type)).toBe(true);
      expect(okEvents[1]?.data).toMatchObject({
        type: "turn.started",
        agentId: "ivy",
        attempt: 1,
        resumed: false,
      });
      expect(okEvents[2]?.data).toMatchObject({
        type: "turn.process",
        process: "cold",
        coldReason: "new_session",
      });
      expect(okEvents[3]?.data).toMatchObject({ type: "turn.succeeded", costUsd: 0.0125 });
      // The old frame is the event as 0.2.x sent it: the same data under its old `type`.
      expect(okEvents[4]?.data).toEqual({ ...okEvents[3]?.data, type: "turn.finished" });

      const badEvents = forDelivery(bad.body.delivery.id);
      expect(badEvents.map((e) => e.name)).toEqual([
        "delivery.accepted",
        "turn.started",
        "turn.process",
        "turn.failed",
        "delivery.failed",
      ]);
      // The crash scenario comes in this message's environment: the kept process could not
      // honour it, so the turn starts a new one.
      expect(badEvents[2]?.data).toMatchObject({ process: "cold", coldReason: "context_changed" });
      expect(badEvents[3]?.data).toMatchObject({ reason: "crashed", retrying: false });
      expect(badEvents[4]?.data).toMatchObject({ reason: "crashed" });
      expect(JSON.stringify(stream.events)).not.toContain(SECRET_TEXT);
    } finally {
      stream.close();
    }
  });

  it("sends a session's reset under its name, and until 0.4.0 under its old one too, once to each kind of client", async () => {
    await td.api.registerAgent("rex", join(dir, "ws-rex"));
    const ack = await td.api.deliver("rex", makeDelivery({ conversation_id: "c-reset" }));
    await td.api.settled([ack.body.delivery.id]);
    const stream = await subscribe();
    try {
      const reset = await td.api.call<{ invalidatedSessionIds: string[] }>(
        "POST",
        "/v1/agents/rex/reset",
      );
      expect(reset.status).toBe(200);
      const [sessionId] = reset.body.invalidatedSessionIds;
      await waitFor(
        () => Promise.resolve(stream.events.some((e) => e.name === "agent.reset") ? true : null),
        "the reset's events",
      );
      const own = stream.events.filter((e) => e.data.agentId === "rex");
      expect(own.map((e) => e.name)).toEqual([
        "session.reset",
        "session.invalidated",
        "agent.reset",
      ]);
      expect(own[0]?.data).toEqual({
        type: "session.reset",
        sessionId,
        agentId: "rex",
        conversationId: "c-reset",
        reason: "reset",
      });
      expect(own[1]?.data).toEqual({ ...own[0]?.data, type: "session.invalidated" });

      // A client that ignores the events it does not know sees each fact once, whichever
      // release it was written for: one knowing this release's names, one knowing 0.2.x's.
      const retired = RETIRED_EVENT_NAMES as Readonly<Record<string, string>>;
      const current = new Set<string>(eventNamesOn("daemon"));
      const previous = new Set<string>([
        ...[...current].filter((name) => !Object.values(retired).includes(name)),
        ...Object.keys(retired),
      ]);
      for (const knows of [current, previous]) {
        const seen = own.filter((e) => knows.has(e.name));
        expect(seen.map((e) => e.name.split(".")[0])).toEqual(["session", "agent"]);
      }
    } finally {
      stream.close();
    }
  });

  it("names every event by the one vocabulary of both apps, or by the old name it replaced", async () => {
    // The compiler's side: the daemon's event types are exactly the vocabulary's daemon names.
    expectTypeOf<DaemonEventType>().toEqualTypeOf<EventNameOn<"daemon">>();
    const stream = await subscribe();
    try {
      const ack = await td.api.deliver("ivy", makeDelivery({ conversation_id: "c-events" }));
      await td.api.settled([ack.body.delivery.id]);
      await waitFor(
        () =>
          Promise.resolve(stream.events.some((e) => e.name === "delivery.completed") ? true : null),
        "the delivery's events",
      );
      for (const { name } of stream.events) {
        const known =
          Object.hasOwn(RETIRED_EVENT_NAMES, name) ||
          (Object.hasOwn(EVENT_NAMES, name) &&
            (EVENT_NAMES[name as keyof typeof EVENT_NAMES] as readonly string[]).includes(
              "daemon",
            ));
        expect(known, name).toBe(true);
      }
    } finally {
      stream.close();
    }
  });

  it("logs the same facts as structured lines, and never a message body, prompt or token", () => {
    const entries = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const turnStarted = entries.filter((e) => e["msg"] === "turn.started");
    expect(turnStarted.length).toBeGreaterThanOrEqual(2);
    expect(turnStarted[0]).toMatchObject({
      level: 30,
      event: { type: "turn.started", agentId: "ivy" },
    });
    expect(entries.some((e) => e["msg"] === "turn.failed")).toBe(true);
    const all = logLines.join("\n");
    expect(all).not.toContain(SECRET_TEXT);
    expect(all).not.toContain(STANDING_PROMPT.slice(0, 60));
    expect(all).not.toContain(td.api.token);
    expect(all).not.toContain("New message received");
  });
});
