import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseSchema } from "../db/schema.ts";
import { consoleBanner, consoleSignInLink } from "../demo.ts";
import { registerAuth } from "./auth.ts";
import { registerConsole } from "./console.ts";

/** The auth hook never reaches the database for a public route or a request without a token. */
const NO_DATABASE = new Proxy(
  {},
  {
    get() {
      throw new Error("the console's routes must not reach the database");
    },
  },
) as unknown as Kysely<DatabaseSchema>;

async function appWith(consoleDir: string | null): Promise<FastifyInstance> {
  const app = Fastify();
  registerAuth(app, NO_DATABASE);
  registerConsole(app, consoleDir);
  app.get("/v1/secret", () => ({ secret: true }));
  await app.ready();
  return app;
}

describe("the web console's files", () => {
  let dist: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), "talkide-console-dist-"));
    mkdirSync(join(dist, "assets"));
    writeFileSync(join(dist, "index.html"), '<!doctype html><div id="app"></div>\n');
    writeFileSync(join(dist, "assets", "index-abc123.js"), "console.log(1);\n");
    writeFileSync(join(dist, "favicon.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
    app = await appWith(dist);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it("serves the page and its assets without a token; the API still needs one", async () => {
    const page = await app.inject({ method: "GET", url: "/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["cache-control"]).toBe("no-cache");
    expect(page.body).toContain('<div id="app">');
    const asset = await app.inject({ method: "GET", url: "/assets/index-abc123.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toContain("immutable");
    expect((await app.inject({ method: "GET", url: "/v1/secret" })).statusCode).toBe(401);
  });

  it("answers /favicon.ico with the console's icon, never with 401", async () => {
    const icon = await app.inject({ method: "GET", url: "/favicon.ico" });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(icon.body).toContain("<svg");
    const named = await app.inject({ method: "GET", url: "/favicon.svg" });
    expect(named.statusCode).toBe(200);
    // Not content-hashed like assets/, so never cached as immutable.
    expect(named.headers["cache-control"]).toBe("no-cache");
  });

  it("serves nothing else: an unknown path is not a public file", async () => {
    for (const url of ["/assets/other.js", "/../package.json", "/index.html/x"]) {
      expect((await app.inject({ method: "GET", url })).statusCode, url).not.toBe(200);
    }
  });

  it("says how to build the console when it is not built", async () => {
    const unbuilt = await appWith(null);
    const page = await unbuilt.inject({ method: "GET", url: "/" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("pnpm --filter @talkide/console run build");
    expect((await unbuilt.inject({ method: "GET", url: "/favicon.ico" })).statusCode).toBe(204);
    await unbuilt.close();
  });
});

describe("the console's sign-in link", () => {
  it("carries the token in the fragment, never in the query", () => {
    const link = consoleSignInLink("http://127.0.0.1:9090", "tkbe_abc-_XYZ");
    const url = new URL(link);
    expect(url.search).toBe("");
    expect(url.pathname).toBe("/");
    expect(url.hash).toBe("#token=tkbe_abc-_XYZ");
  });

  it("the start banner names the console's address, or how to build it", () => {
    expect(consoleBanner("http://127.0.0.1:9090", true)).toContain("http://127.0.0.1:9090/");
    expect(consoleBanner("http://127.0.0.1:9090", false)).toContain("run build");
  });
});
