import { Writable } from "node:stream";
import type { DestinationStream } from "pino";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

function capture(): { lines: string[]; stream: DestinationStream } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString("utf8"));
      callback();
    },
  });
  return { lines, stream };
}

/** Every key any of the services (backend, daemon, hub) has ever redacted. */
const REDACTED_KEYS = [
  "authorization",
  "token",
  "tokenHash",
  "token_sha256",
  "apiKey",
  "ANTHROPIC_API_KEY",
  "password",
  "email",
  "displayName",
  "display_name",
  "phone",
  "salutation",
  "teamBriefing",
  "team_briefing",
  "prompt",
  "text",
  "content",
  "resultText",
  "result_text",
  "body",
  "payload",
];

describe("createLogger", () => {
  it("writes one JSON line naming the service, its pid, level and message", () => {
    const { lines, stream } = capture();
    createLogger("talkide-test", "info", stream).info({ turnId: "t1" }, "started");
    const line = JSON.parse(lines.join("")) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 30,
      name: "talkide-test",
      pid: process.pid,
      turnId: "t1",
      msg: "started",
    });
  });

  it.each(REDACTED_KEYS)("redacts %s at the top level and one level down", (key) => {
    const { lines, stream } = capture();
    createLogger("talkide-test", "info", stream).info(
      { [key]: "canary-top", nested: { [key]: "canary-nested", id: "n1" }, turnId: "t1" },
      "event",
    );
    const line = lines.join("");
    expect(line).not.toContain("canary");
    expect(line).toContain('"turnId":"t1"');
    expect(line).toContain('"id":"n1"');
  });

  it("redacts personal data, secrets and model text wherever a key names them", () => {
    const { lines, stream } = capture();
    createLogger("talkide-test", "info", stream).info(
      {
        email: "a@example.com",
        user: { displayName: "Anna Nováková", phone: "+420 1", id: "u1" },
        teamBriefing: "brief",
        req: { headers: { authorization: "Bearer tkbe_secret", cookie: "session=s3cret" } },
        headers: { authorization: "Bearer tkd_secret" },
        member: { salutation: "Anna", teamBriefing: "x" },
        prompt: "hello",
        turnId: "t1",
      },
      "event",
    );
    const line = lines.join("");
    for (const value of [
      "a@example.com",
      "Anna Nováková",
      "+420 1",
      "brief",
      "tkbe_secret",
      "s3cret",
      "tkd_secret",
      "hello",
      '"Anna"',
    ]) {
      expect(line).not.toContain(value);
    }
    expect(line).toContain('"turnId":"t1"');
    expect(line).toContain('"id":"u1"');
  });

  it("logs a request as its method and path, never its query or headers", () => {
    const { lines, stream } = capture();
    createLogger("talkide-test", "info", stream).info(
      {
        req: {
          id: "r1",
          method: "GET",
          url: "/v1/x?token=abc",
          headers: { "x-secret": "hdr" },
        },
      },
      "request",
    );
    const line = lines.join("");
    expect(line).toContain('"url":"/v1/x"');
    expect(line).not.toContain("abc");
    expect(line).not.toContain("hdr");
  });

  it("logs database errors by type, code and constraint, without the values drivers attach", () => {
    const error = Object.assign(
      new Error('duplicate key value violates unique constraint "users_email_key_key"'),
      {
        code: "23505",
        constraint: "users_email_key_key",
        detail: "Key (email_key)=(anna@example.com) already exists.",
        where: "unnamed portal parameter $1 = 'secret message'",
      },
    );
    const { lines, stream } = capture();
    createLogger("talkide-test", "info", stream).error({ err: error }, "failed");
    const line = JSON.parse(lines.join("")) as { err: Record<string, unknown> };
    expect(line.err).toMatchObject({
      type: "Error",
      code: "23505",
      constraint: "users_email_key_key",
    });
    expect(JSON.stringify(line)).not.toContain("anna@example.com");
    expect(JSON.stringify(line)).not.toContain("secret message");
  });
});
