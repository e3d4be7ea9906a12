import { Writable } from "node:stream";
import { join } from "node:path";
import { STANDING_PROMPT } from "@talkide/prompts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import type { DaemonEvent } from "./bus.ts";

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
      expect(okEvents.map((e) => e.name)).toEqual([
        "delivery.accepted",
        "turn.started",
        "turn.process",
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
      expect(okEvents[3]?.data).toMatchObject({ type: "turn.finished", costUsd: 0.0125 });

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
