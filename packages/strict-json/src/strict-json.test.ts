import { fc, test } from "@fast-check/vitest";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BodyFault,
  checkCharset,
  checkStorableText,
  decodeUtf8,
  MAX_NESTING,
  useStrictJsonBodies,
} from "./strict-json.ts";

function faultOf(
  run: () => unknown,
): { code: string; statusCode: number; path: string | undefined } | null {
  try {
    run();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(BodyFault);
    const fault = error as BodyFault;
    return { code: fault.code, statusCode: fault.statusCode, path: fault.path };
  }
}

describe("checkCharset", () => {
  it.each([
    undefined,
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    'application/json; charset="utf-8"',
    "application/json; charset=utf8",
  ])("accepts %s", (contentType) => {
    expect(
      faultOf(() => {
        checkCharset(contentType);
      }),
    ).toBeNull();
  });
  it.each(["application/json; charset=utf-16", "application/json; charset=latin1"])(
    "refuses %s with 415 unsupported_charset",
    (contentType) => {
      expect(
        faultOf(() => {
          checkCharset(contentType);
        }),
      ).toMatchObject({
        code: "unsupported_charset",
        statusCode: 415,
      });
    },
  );
});

describe("decodeUtf8", () => {
  it("keeps valid UTF-8 as it is", () => {
    expect(decodeUtf8(Buffer.from('{"text":"Pekárna 🥐"}'))).toBe('{"text":"Pekárna 🥐"}');
  });
  it.each([[[0xff, 0xfe]], [[0xc3]], [[0xed, 0xa0, 0x80]], [[0xc0, 0xaf]]])(
    "refuses the bytes %j instead of replacing them",
    (bytes) => {
      const body = Buffer.concat([Buffer.from('{"text":"'), Buffer.from(bytes), Buffer.from('"}')]);
      expect(faultOf(() => decodeUtf8(body))).toMatchObject({
        code: "invalid_encoding",
        statusCode: 400,
      });
    },
  );
});

describe("checkStorableText", () => {
  it.each([
    [{ text: "a\u0000b" }, "text"],
    [{ member: { salutation: "\ud800" } }, "member.salutation"],
    [{ list: ["ok", "\udfff x"] }, "list.1"],
    [{ "weird key!": "\u0000" }, "*"],
  ])("refuses %j at %s", (value, path) => {
    expect(
      faultOf(() => {
        checkStorableText(value);
      }),
    ).toEqual({
      code: "invalid_text",
      statusCode: 400,
      path,
    });
  });
  it("refuses a field name with NUL", () => {
    expect(
      faultOf(() => {
        checkStorableText({ a: { "x\u0000": 1 } });
      }),
    ).toMatchObject({
      code: "invalid_text",
      path: "a",
    });
  });
  it("accepts paired surrogates, control characters other than NUL and every scalar", () => {
    expect(
      faultOf(() => {
        checkStorableText({ t: "🥐\t\u0001\uFFFF", n: [1, null, true] });
      }),
    ).toBeNull();
  });
  it("refuses nesting deeper than MAX_NESTING without exhausting the stack", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(
      faultOf(() => {
        checkStorableText(deep);
      }),
    ).toMatchObject({ code: "too_deeply_nested" });
    let ok: unknown = "x";
    for (let i = 0; i < MAX_NESTING; i += 1) ok = { a: ok };
    expect(
      faultOf(() => {
        checkStorableText(ok);
      }),
    ).toBeNull();
  });
  test.prop([fc.string({ unit: "grapheme" })])("accepts any well-formed text without NUL", (s) => {
    fc.pre(!s.includes("\0"));
    expect(
      faultOf(() => {
        checkStorableText({ s, [s]: s });
      }),
    ).toBeNull();
  });
  test.prop([fc.string({ unit: "binary" }), fc.string({ unit: "binary" })])(
    "refuses exactly the strings PostgreSQL text cannot hold, never echoing them",
    (s, key) => {
      const bad = (x: string) => x.includes("\0") || !x.isWellFormed();
      const fault = faultOf(() => {
        checkStorableText({ [key]: s });
      });
      expect(fault === null).toBe(!bad(s) && !bad(key));
    },
  );
});

describe("useStrictJsonBodies on a Fastify app", () => {
  let app: FastifyInstance;
  let seen = 0;
  beforeAll(async () => {
    app = Fastify();
    useStrictJsonBodies(app);
    app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _req, reply) =>
      reply.code(error.statusCode ?? 500).send({ code: error.code }),
    );
    app.post("/echo", (request) => {
      seen += 1;
      return { body: request.body };
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  const post = (payload: string | Buffer, contentType = "application/json") =>
    app.inject({ method: "POST", url: "/echo", headers: { "content-type": contentType }, payload });

  it("passes a good body through unchanged", async () => {
    const response = await post('{"text":"Ahoj 🥐"}');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ body: { text: "Ahoj 🥐" } });
  });
  it.each([
    ['{"text":"a\\u0000b"}', "application/json", 400, "invalid_text"],
    ['{"text":"\\ud800"}', "application/json", 400, "invalid_text"],
    [
      Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      "application/json",
      400,
      "invalid_encoding",
    ],
    ['{"text":"a"}', "application/json; charset=utf-16", 415, "unsupported_charset"],
    ['{"__proto__":{"x":1}}', "application/json", 400, "FST_ERR_CTP_INVALID_JSON_BODY"],
  ] as const)(
    "refuses %j (%s) with %i %s before the handler",
    async (payload, type, status, code) => {
      const before = seen;
      const response = await post(payload, type);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual({ code });
      expect(seen).toBe(before);
    },
  );
});
