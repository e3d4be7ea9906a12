import Fastify, { type FastifyError } from "fastify";
import { describe, expect, it } from "vitest";
import { ApiError, errorBody, problemBody, sendProblem } from "./api-error.ts";
import { BODY_LIMIT_BYTES, mapFastifyError } from "./fastify-errors.ts";

describe("one ApiError, two documented shapes", () => {
  const error = new ApiError(400, "invalid_field", "salutation: too long.", {
    path: "salutation",
    title: "Invalid field",
    extensions: { field: "salutation" },
  });

  it("renders the daemon's and the hub's { error: { code, message, path } }", () => {
    expect(JSON.stringify(errorBody(error.code, error.message, error.path))).toBe(
      '{"error":{"code":"invalid_field","message":"salutation: too long.","path":"salutation"}}',
    );
  });

  it("renders the backend's problem+json, members in the order the backend has always sent", () => {
    expect(JSON.stringify(problemBody(error))).toBe(
      '{"path":"salutation","field":"salutation","type":"urn:talkide:problem:invalid_field",' +
        '"title":"Invalid field","status":400,"code":"invalid_field","detail":"salutation: too long."}',
    );
    expect(problemBody(new ApiError(404, "gone", "Gone.")).title).toBe("Not Found");
  });
});

describe("mapFastifyError over real requests", () => {
  async function answers(wording?: Parameters<typeof mapFastifyError>[1]) {
    const app = Fastify({ bodyLimit: BODY_LIMIT_BYTES });
    app.setErrorHandler((error: FastifyError, _request, reply) => {
      const mapped = mapFastifyError(error, wording) ?? new ApiError(500, "internal_error", "x");
      return sendProblem(reply, mapped);
    });
    app.post("/", () => ({ ok: true }));
    const post = (payload: string, contentType: string) =>
      app.inject({ method: "POST", url: "/", payload, headers: { "content-type": contentType } });
    const results = [
      await post("{", "application/json"),
      await post("", "application/json"),
      await post(JSON.stringify({ a: "x".repeat(BODY_LIMIT_BYTES) }), "application/json"),
      await post("hi", "application/x-unknown"),
    ];
    await app.close();
    return results.map((r) => {
      const body = r.json<{ code: string; detail: string; status: number }>();
      expect(r.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
      expect(body.status).toBe(r.statusCode);
      return [r.statusCode, body.code, body.detail];
    });
  }

  it("gives each refusal a stable code and, by default, the daemon's and the hub's wording", async () => {
    expect(await answers()).toEqual([
      [400, "invalid_json", "The request body is not valid JSON."],
      [400, "invalid_json", "The request body is not valid JSON."],
      [413, "payload_too_large", "The request body exceeds 1048576 bytes."],
      [415, "unsupported_media_type", "Send the body as application/json."],
    ]);
  });

  it("uses a service's own wording where it documents one", async () => {
    const wording = {
      payloadTooLarge: "Too big.",
      unsupportedMediaType: "JSON.",
      badRequest: "No.",
    };
    expect((await answers(wording)).map(([, , detail]) => detail)).toEqual([
      "The request body is not valid JSON.",
      "The request body is not valid JSON.",
      "Too big.",
      "JSON.",
    ]);
  });

  it("answers any other 4xx of Fastify's own with a fixed message, and leaves the rest to the caller", () => {
    const other = Object.assign(new Error("secret /path?x=1"), { statusCode: 431 }) as FastifyError;
    expect(mapFastifyError(other)).toMatchObject({ httpStatus: 431, code: "bad_request" });
    expect(mapFastifyError(other)?.message).not.toContain("secret");
    expect(mapFastifyError(new Error("boom") as FastifyError)).toBeNull();
  });
});
