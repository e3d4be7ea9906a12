import { describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { ApiError, sendErrorBody } from "../http/api-error.ts";
import { createHttpApp } from "../http/create-http-app.ts";
import { bearerChallenge, bearerRefusal, readBearer } from "./bearer.ts";

describe("readBearer", () => {
  it.each([
    [undefined, "none"],
    ["", "none"],
    ["Bearer", "malformed"],
    ["Bearer ", "malformed"],
    ["Basic dXNlcjpwYXNz", "malformed"],
    ["Bearer one two", "malformed"],
    ["Bearertkd_x", "malformed"],
  ] as const)("reads %j as %s, whatever the separator", (header, kind) => {
    expect(readBearer(header, "spaces")).toEqual({ kind });
    expect(readBearer(header, "whitespace")).toEqual({ kind });
  });

  it("takes the scheme in any case, spaces around the token, and any token characters", () => {
    for (const separator of ["spaces", "whitespace"] as const) {
      expect(readBearer("Bearer tkd_a-b_c", separator)).toEqual({
        kind: "token",
        token: "tkd_a-b_c",
      });
      expect(readBearer("bEARER   a.b/c=  ", separator)).toEqual({
        kind: "token",
        token: "a.b/c=",
      });
    }
  });

  it("takes a tab after the scheme only where the service always has (the daemon, the hub)", () => {
    expect(readBearer("Bearer\ttoken", "whitespace")).toEqual({ kind: "token", token: "token" });
    expect(readBearer("Bearer\ttoken", "spaces")).toEqual({ kind: "malformed" });
  });
});

describe("a bearer refusal", () => {
  it("writes RFC 6750's challenge", () => {
    expect(bearerChallenge("talkide-hub")).toBe('Bearer realm="talkide-hub"');
    expect(bearerChallenge("talkide-hub", "invalid_token")).toBe(
      'Bearer realm="talkide-hub", error="invalid_token"',
    );
  });

  it("answers 401 with the challenge, in the service's error shape", async () => {
    const app = createHttpApp({
      logger: createLogger("test", "silent"),
      send: sendErrorBody,
      internalErrorMessage: "Failed.",
      notFound: () => new ApiError(404, "not_found", "No."),
      requestIdHeader: false,
    });
    app.get("/private", {
      preHandler: async (request, reply) => {
        await Promise.resolve();
        const credential = readBearer(request.headers.authorization, "whitespace");
        if (credential.kind !== "token" || credential.token !== "right") {
          throw bearerRefusal(
            reply,
            { realm: "test", ...(credential.kind === "token" ? { error: "invalid_token" } : {}) },
            credential.kind === "token" ? "invalid_token" : "unauthorized",
            "Send the right token.",
          );
        }
      },
      handler: () => ({ ok: true }),
    });
    const none = await app.inject({ url: "/private" });
    const wrong = await app.inject({ url: "/private", headers: { authorization: "Bearer x" } });
    const right = await app.inject({ url: "/private", headers: { authorization: "Bearer right" } });
    await app.close();
    expect([none.statusCode, none.headers["www-authenticate"], none.body]).toEqual([
      401,
      'Bearer realm="test"',
      '{"error":{"code":"unauthorized","message":"Send the right token."}}',
    ]);
    expect([wrong.statusCode, wrong.headers["www-authenticate"], wrong.json()]).toEqual([
      401,
      'Bearer realm="test", error="invalid_token"',
      { error: { code: "invalid_token", message: "Send the right token." } },
    ]);
    expect([right.statusCode, right.headers["www-authenticate"]]).toEqual([200, undefined]);
  });
});
