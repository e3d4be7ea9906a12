import { fc, test } from "@fast-check/vitest";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walkHostileUrls, type UrlResponse } from "./hostile-urls.ts";
import {
  guardedRoutes,
  PG_INTEGER_MAX,
  UrlFault,
  urlFaultOf,
  urlInteger,
  useStrictUrls,
} from "./strict-url.ts";

/** A service's error shape, as the daemon's: `{ error: { code, message, path? } }`. */
function sendError(error: FastifyError | UrlFault, reply: FastifyReply): FastifyReply {
  if (error instanceof UrlFault) {
    return reply.code(error.statusCode).send({
      error: { code: error.code, message: error.message, path: error.path },
    });
  }
  const status = error.statusCode ?? 500;
  return reply
    .code(status)
    .send({ error: { code: status < 500 ? "bad_request" : "internal_error", message: "x" } });
}

function shapeFault(response: UrlResponse): string | null {
  const body = JSON.parse(response.text) as { error?: { code?: unknown } };
  return typeof body.error?.code === "string" ? null : "not the error shape";
}

/**
 * A route that trusts its parameters as a careless service would: it repeats them in its 404
 * and fails (500) on text its database could not store.
 */
function naiveRoute(app: FastifyInstance): void {
  app.get("/items/:id", (request, reply) => {
    const { id } = request.params as { id: string };
    const { before } = request.query as { before?: string };
    if (id.includes("\0") || (before ?? "").includes("\0")) throw new Error("22021");
    return reply.code(404).send({ error: { code: "not_found", message: `No item ${id}.` } });
  });
}

async function serve(strict: boolean): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({
    frameworkErrors: (error, _request, reply) => {
      void sendError(urlFaultOf(error), reply);
    },
  });
  app.setErrorHandler((error: FastifyError | UrlFault, _request, reply) => sendError(error, reply));
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ error: { code: "not_found", message: "No such route." } }),
  );
  if (strict) useStrictUrls(app);
  naiveRoute(app);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url };
}

describe("useStrictUrls", () => {
  let strict: { app: FastifyInstance; url: string };
  let careless: { app: FastifyInstance; url: string };

  beforeAll(async () => {
    strict = await serve(true);
    careless = await serve(false);
  });
  afterAll(async () => {
    await strict.app.close();
    await careless.app.close();
  });

  async function get(path: string) {
    const response = await fetch(`${strict.url}${path}`);
    return { status: response.status, body: await response.json() };
  }

  it.each([
    ["/items/a%00b", 400, "invalid_text", "id"],
    ["/items/x?before=%00", 400, "invalid_text", "before"],
    ["/items/x?before=%ff", 400, "invalid_encoding", undefined],
    ["/items/x?before=%ED%A0%80", 400, "invalid_encoding", undefined],
    ["/items/x?before=%e", 400, "invalid_encoding", undefined],
    ["/items/%ff", 400, "invalid_encoding", undefined],
    [`/items/${"a".repeat(101)}`, 414, "parameter_too_long", undefined],
    [`/items/x?before=${"a".repeat(1001)}`, 414, "parameter_too_long", "before"],
    ["/items/x?a%00=1", 400, "invalid_text", "*"],
  ])("refuses %.40s with %i %s", async (path, status, code, name) => {
    const answer = await get(path);
    expect(answer).toEqual({
      status,
      body: { error: { code, message: expect.any(String) as string, path: name } },
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/aaaa|%ff|items/);
  });

  it("lets valid values through to the route", async () => {
    expect(await get("/items/Pek%C3%A1rna%20%F0%9F%A5%90?before=12")).toMatchObject({
      status: 404,
    });
  });

  it("knows every route registered after it, from the router", () => {
    expect(guardedRoutes(strict.app)).toEqual([
      { method: "GET", url: "/items/:id" },
      { method: "HEAD", url: "/items/:id" },
    ]);
    expect(guardedRoutes(careless.app)).toEqual([]);
  });

  it("lets the walk find a careless route's 500s and echoes, and none once strict", async () => {
    const walk = {
      params: { id: "x" },
      queryNames: ["before"],
      tokens: [null],
      errorShapeFault: shapeFault,
    };
    const found = await walkHostileUrls({
      ...walk,
      baseUrl: careless.url,
      routes: [{ method: "GET", url: "/items/:id" }],
    });
    expect(found.some((fault) => fault.startsWith("GET /items/:id :id=NUL (no token): 500"))).toBe(
      true,
    );
    expect(
      found.some((fault) => fault.startsWith("GET /items/:id ?before=NUL (no token): 500")),
    ).toBe(true);
    expect(found.some((fault) => fault.includes("repeats the hostile value"))).toBe(true);
    // Strict, no value reaches the route that would fail there; the route's own 404 still
    // repeats storable text (`2147483648`, `../`), which the walk reports: that is the
    // route's to fix, as the services' routes do.
    const strictFaults = await walkHostileUrls({
      ...walk,
      baseUrl: strict.url,
      routes: guardedRoutes(strict.app),
    });
    expect(strictFaults.filter((fault) => !fault.endsWith("repeats the hostile value"))).toEqual(
      [],
    );
    expect(strictFaults.some((fault) => fault.includes("NUL"))).toBe(false);
  });
});

describe("urlInteger", () => {
  const schema = urlInteger({ min: 1, max: PG_INTEGER_MAX });

  test.prop([fc.integer({ min: 1, max: PG_INTEGER_MAX })])(
    "reads every whole number in range",
    (n) => {
      expect(schema.parse(String(n))).toBe(n);
    },
  );

  it.each(["0", "-1", "+1", "1e3", "1.5", " 1", "0x10", "", "2147483648", "9223372036854775808"])(
    "refuses %j",
    (text) => {
      expect(schema.safeParse(text).success).toBe(false);
    },
  );

  it("refuses a repeated parameter (an array)", () => {
    expect(schema.safeParse(["1", "2"]).success).toBe(false);
  });
});
