import { Writable } from "node:stream";
import type { DestinationStream } from "pino";
import { describe, expect, it } from "vitest";
import { createLogger, safeErrorSerializer } from "./logger.ts";

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

describe("the service logger", () => {
  it("redacts personal data, secrets and model text wherever a key names them", () => {
    const { lines, stream } = capture();
    const logger = createLogger("info", stream);
    logger.info(
      {
        email: "a@example.com",
        user: { displayName: "Anna Nováková", phone: "+420 1", id: "u1" },
        teamBriefing: "brief",
        req: { headers: { authorization: "Bearer tkbe_secret" } },
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
      "hello",
      '"Anna"',
    ]) {
      expect(line).not.toContain(value);
    }
    expect(line).toContain('"turnId":"t1"');
    expect(line).toContain('"id":"u1"');
  });

  it("logs database errors without the values drivers attach to them", () => {
    const error = Object.assign(
      new Error('duplicate key value violates unique constraint "users_email_key_key"'),
      {
        code: "23505",
        constraint: "users_email_key_key",
        detail: "Key (email_key)=(anna@example.com) already exists.",
      },
    );
    const serialized = safeErrorSerializer(error);
    expect(serialized).toMatchObject({
      type: "Error",
      code: "23505",
      constraint: "users_email_key_key",
    });
    expect(JSON.stringify(serialized)).not.toContain("anna@example.com");
    const { lines, stream } = capture();
    createLogger("info", stream).error({ err: error }, "failed");
    expect(lines.join("")).not.toContain("anna@example.com");
  });
});
