import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import cookie from "@fastify/cookie";
import Fastify, { type FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseSchema } from "../db/schema.ts";
import { consoleBanner } from "../demo.ts";
import { registerAuth } from "./auth.ts";
import { registerConsole } from "./console.ts";
import type { AppDependencies } from "./context.ts";
import { registerSecurityHeaders } from "./security-headers.ts";

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
  await app.register(cookie);
  await registerSecurityHeaders(app, "http://127.0.0.1:9090");
  registerAuth(app, {
    db: NO_DATABASE,
    accounts: { publicUrl: "http://127.0.0.1:9090", sessionIdleHours: 1, tokenLifetimeDays: 1 },
  } as AppDependencies);
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

describe("the console's page headers", () => {
  it("allow only the console's own scripts and styles, forbid framing, sniffing and referrers", async () => {
    const app = await appWith(null);
    const page = await app.inject({ method: "GET", url: "/" });
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    // A team's plain-http address must keep working: no upgrade of its requests to https.
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect(page.headers["strict-transport-security"]).toBeUndefined();
    await app.close();
  });
});

describe("the start banner", () => {
  it("names the console's address with a one-time sign-in link, or how to build it", () => {
    const signIn = { code: "tksi_abc", path: "/#code=tksi_abc", expiresAt: "2026-12-08T10:00:00Z" };
    const banner = consoleBanner("http://127.0.0.1:9090", true, signIn);
    expect(banner).toContain("http://127.0.0.1:9090/");
    expect(banner).toContain("http://127.0.0.1:9090/#code=tksi_abc");
    expect(banner).not.toContain("#token=");
    expect(consoleBanner("http://127.0.0.1:9090", true, null)).toContain("talkide-be sign-in-link");
    expect(consoleBanner("http://127.0.0.1:9090", false, null)).toContain("run build");
  });
});
