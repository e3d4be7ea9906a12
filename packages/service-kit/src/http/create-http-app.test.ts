import { afterEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { capturingLogger } from "../test-support/hostile-routes.ts";
import { ApiError, sendErrorBody, sendProblem } from "./api-error.ts";
import { createHttpApp, type HttpAppOptions } from "./create-http-app.ts";
import type { SendApiError } from "./error-handler.ts";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function app(send: SendApiError, options: Partial<HttpAppOptions> = {}) {
  const { logger, logs } = capturingLogger("test");
  const made = createHttpApp({
    logger,
    send,
    internalErrorMessage: "The service failed; see its log.",
    notFound: () => new ApiError(404, "not_found", "No such endpoint.", { title: "No such route" }),
    requestIdHeader: false,
    ...options,
  });
  // A hook the service adds after the app is made (authentication) runs before the
  // not-found answer too.
  made.addHook("onRequest", async (_request, reply) => {
    await Promise.resolve();
    void reply.header("x-hook", "ran");
  });
  made.post("/echo", (request) => ({ got: request.body }));
  made.get("/items/:id", (request) => request.params);
  made.get("/boom", () => {
    throw Object.assign(new Error("secret detail of the database"), { detail: "Key (x)=(1)" });
  });
  apps.push(made);
  return { app: made, logs };
}

const post = (target: FastifyInstance, payload: string, contentType = "application/json") =>
  target.inject({
    method: "POST",
    url: "/echo",
    payload,
    headers: { "content-type": contentType },
  });

describe("createHttpApp", () => {
  it("answers every refusal in the { error } shape with a stable code", async () => {
    const { app: a } = app(sendErrorBody);
    const answers = [
      await post(a, "{"),
      await post(a, "hi", "text/plain"),
      await post(a, '{"a":"\\u0000"}'),
      await post(a, JSON.stringify({ a: "x".repeat(1024 * 1024) })),
      await a.inject({ url: "/items/%FF" }),
      await a.inject({ url: `/items/${"1".repeat(101)}` }),
      await a.inject({ url: "/nothing" }),
    ];
    expect(answers.map((r) => [r.statusCode, r.headers["content-type"], r.body])).toEqual([
      [
        400,
        "application/json; charset=utf-8",
        '{"error":{"code":"invalid_json","message":"The request body is not valid JSON."}}',
      ],
      [
        415,
        "application/json; charset=utf-8",
        '{"error":{"code":"unsupported_media_type","message":"Send the body as application/json."}}',
      ],
      [
        400,
        "application/json; charset=utf-8",
        '{"error":{"code":"invalid_text","message":"a holds a character that cannot be stored (NUL or a lone surrogate); remove it.","path":"a"}}',
      ],
      [
        413,
        "application/json; charset=utf-8",
        '{"error":{"code":"payload_too_large","message":"The request body exceeds 1048576 bytes."}}',
      ],
      [
        400,
        "application/json; charset=utf-8",
        '{"error":{"code":"invalid_encoding","message":"The URL holds a percent-encoded byte sequence that is not UTF-8 (or a lone surrogate); percent-encode parameters as UTF-8."}}',
      ],
      [
        414,
        "application/json; charset=utf-8",
        '{"error":{"code":"parameter_too_long","message":"A path parameter is longer than 100 characters; no route accepts that."}}',
      ],
      [
        404,
        "application/json; charset=utf-8",
        '{"error":{"code":"not_found","message":"No such endpoint."}}',
      ],
    ]);
    expect(answers.at(-1)?.headers["x-hook"]).toBe("ran");
  });

  it("answers in problem+json with titles, and a service's own wording, where it asks", async () => {
    const { app: a } = app(sendProblem, {
      wording: { payloadTooLarge: "Too big.", unsupportedMediaType: "JSON.", badRequest: "No." },
    });
    const answers = [
      await post(a, '{"a":"\\u0000"}'),
      await post(a, "hi", "text/plain"),
      await a.inject({ url: "/items/%FF" }),
      await a.inject({ url: "/nothing" }),
    ];
    expect(answers.map((r) => [r.statusCode, r.headers["content-type"], r.body])).toEqual([
      [
        400,
        "application/problem+json; charset=utf-8",
        '{"path":"a","type":"urn:talkide:problem:invalid_text","title":"Text that cannot be stored","status":400,"code":"invalid_text","detail":"a holds a character that cannot be stored (NUL or a lone surrogate); remove it."}',
      ],
      [
        415,
        "application/problem+json; charset=utf-8",
        '{"type":"urn:talkide:problem:unsupported_media_type","title":"Unsupported media type","status":415,"code":"unsupported_media_type","detail":"JSON."}',
      ],
      [
        400,
        "application/problem+json; charset=utf-8",
        '{"type":"urn:talkide:problem:invalid_encoding","title":"URL is not UTF-8","status":400,"code":"invalid_encoding","detail":"The URL holds a percent-encoded byte sequence that is not UTF-8 (or a lone surrogate); percent-encode parameters as UTF-8."}',
      ],
      [
        404,
        "application/problem+json; charset=utf-8",
        '{"type":"urn:talkide:problem:not_found","title":"No such route","status":404,"code":"not_found","detail":"No such endpoint."}',
      ],
    ]);
  });

  it("logs an unexpected error with its request and answers 500 without repeating it", async () => {
    const { app: a, logs } = app(sendErrorBody);
    const answer = await a.inject({ url: "/boom" });
    expect([answer.statusCode, answer.body]).toEqual([
      500,
      '{"error":{"code":"internal_error","message":"The service failed; see its log."}}',
    ]);
    const failed = logs
      .map((line) => JSON.parse(line) as { msg: string; reqId?: string; err?: object })
      .find((line) => line.msg === "request failed");
    expect(failed?.reqId).toMatch(/^req-/);
    expect(failed?.err).toMatchObject({ message: "secret detail of the database" });
    expect(JSON.stringify(failed)).not.toContain("Key (x)=(1)");
  });

  it("takes a request id from the client only where the service names the header", async () => {
    const idOf = async (options: Partial<HttpAppOptions>) => {
      const { app: a, logs } = app(sendErrorBody, options);
      await a.inject({ url: "/nothing", headers: { "x-request-id": "client-chosen" } });
      return (JSON.parse(logs.at(-1) ?? "{}") as { reqId?: string }).reqId;
    };
    expect(await idOf({ requestIdHeader: "x-request-id" })).toBe("client-chosen");
    expect(await idOf({ requestIdHeader: false })).toMatch(/^req-/);
  });

  it("writes the routine request lines at debug when asked (the start banner stays in view)", async () => {
    const levels = async (quietRequestLog: boolean) => {
      const { app: a, logs } = app(sendErrorBody, { quietRequestLog });
      await a.inject({ method: "POST", url: "/echo", payload: {} });
      return logs
        .map((line) => JSON.parse(line) as { msg: string; level: number })
        .filter((line) => ["incoming request", "request completed"].includes(line.msg))
        .map((line) => line.level);
    };
    expect(await levels(true)).toEqual([20, 20]);
    expect(await levels(false)).toEqual([30, 30]);
  });
});
