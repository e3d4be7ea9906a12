import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  cacheControls,
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  startFakeMessagesApi,
  type FakeMessagesApi,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import type { PromptCacheTtl } from "@talkide/claude-cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

const canRun = realClaudeSuiteCanRun("The daemon's prompt-cache lifetime at the wire");

/** The `ttl` of every `cache_control` marker of a request body (`null`: none given). */
const markerTtls = (body: unknown): unknown[] => cacheControls(body).map((m) => m["ttl"] ?? null);

/**
 * `TALKIDE_PROMPT_CACHE_TTL` (README): a turn of the default `1h` daemon asks for the 1-hour
 * cache on every breakpoint with the extended-TTL beta; one of a `5m` daemon sends no `ttl` and
 * no beta, the CLI's own requests.
 */
describe.skipIf(!canRun)("the daemon's prompt-cache lifetime, at the wire", () => {
  let dir: string;
  const apis: FakeMessagesApi[] = [];
  const daemons: TestDaemon[] = [];
  const firstRequest = new Map<PromptCacheTtl, RecordedRequest>();

  beforeAll(async () => {
    dir = await makeTempDir();
    for (const ttl of ["1h", "5m"] as const) {
      const home = join(dir, ttl, "home");
      await mkdir(join(home, "tmp"), { recursive: true });
      const api = await startFakeMessagesApi({ reply: { text: "Done." } });
      apis.push(api);
      const td = await startTestDaemon({
        dataDir: join(dir, ttl),
        config: {
          claudePath: REAL_CLAUDE_PATH ?? "",
          concurrency: 1,
          turnTimeoutMs: 120_000,
          // The harness's default is the service's: 1h.
          ...(ttl === "5m" ? { promptCacheTtl: "5m" } : {}),
        },
        childBaseEnv: realClaudeEnv({
          baseUrl: api.url,
          home,
          extra: { TMPDIR: join(home, "tmp") },
        }),
        killGraceMs: 2000,
      });
      daemons.push(td);
      await td.api.registerAgent("alice", join(dir, ttl, "ws-alice"));
      const ack = await td.api.deliver("alice", makeDelivery({ text: "Please check the bug." }));
      const [done] = await td.api.settled([ack.body.delivery.id]);
      expect(done?.state, JSON.stringify(done)).toBe("completed");
      const request = api.messageRequests()[0];
      if (request === undefined) throw new Error(`no model request with ${ttl}`);
      firstRequest.set(ttl, request);
    }
  });

  afterAll(async () => {
    for (const td of daemons) await td.stop();
    for (const api of apis) await api.close();
    await removeDir(dir);
  });

  it("asks for the 1-hour cache by default", () => {
    const request = firstRequest.get("1h");
    const ttls = markerTtls(request?.body);
    expect(ttls.length).toBeGreaterThan(0);
    expect(new Set(ttls)).toEqual(new Set(["1h"]));
    expect(request?.headers["anthropic-beta"]).toContain("extended-cache-ttl-2025-04-11");
  });

  it("sends the CLI's own 5-minute requests with promptCacheTtl 5m", () => {
    const request = firstRequest.get("5m");
    const ttls = markerTtls(request?.body);
    expect(ttls.length).toBeGreaterThan(0);
    expect(new Set(ttls)).toEqual(new Set([null]));
    expect(request?.rawBody).not.toContain('"ttl"');
    expect(request?.headers["anthropic-beta"] ?? "").not.toContain("extended-cache-ttl");
  });
});
