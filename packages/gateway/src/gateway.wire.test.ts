import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  runOneTurn,
  startFakeMessagesApi,
  type FakeMessagesApi,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { makeTempDir, removeDir } from "@talkide/service-kit/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limitSettings } from "./limits.ts";
import { roundUsd } from "./prices.ts";
import { PROVIDER_KEY, startBench, type Bench } from "./test-support/bench.ts";

const canRun = realClaudeSuiteCanRun("the @talkide/gateway wire suite");

/** A request as the provider saw it, with what differs from run to run named instead. */
function comparable(request: RecordedRequest): { headers: Record<string, string>; body: string } {
  const session = request.headers["x-claude-code-session-id"] ?? "";
  const headers: Record<string, string> = { ...request.headers };
  delete headers["host"];
  return {
    headers: JSON.parse(JSON.stringify(headers).replaceAll(session, "<session>")) as Record<
      string,
      string
    >,
    body: request.rawBody.replaceAll(session, "<session>"),
  };
}

/**
 * The pinned Claude Code CLI through the gateway, against the fake Messages API: what reaches
 * the provider is what the CLI sends without the gateway (the key included), the gateway's cost
 * of a fresh session's turn is the CLI's own figure, and a refusal over a limit costs one
 * request and no retry.
 */
describe.skipIf(!canRun)("at the wire: the real CLI through the gateway", () => {
  let bench: Bench;
  let direct: FakeMessagesApi;
  let dir: string;
  beforeAll(async () => {
    bench = await startBench();
    direct = await startFakeMessagesApi({ keepCredentials: true });
    dir = await makeTempDir("talkide-gateway-wire-");
  });
  afterAll(async () => {
    await bench.close();
    await direct.close();
    await removeDir(dir);
  });

  const turn = async (
    baseUrl: string,
    apiKey: string,
    home: string,
    cwd: string,
    extra: Record<string, string> = {},
  ) => {
    await mkdir(cwd, { recursive: true });
    return runOneTurn({
      claudePath: REAL_CLAUDE_PATH ?? "claude",
      cwd,
      prompt: "Ahoj, kde začneme?",
      env: realClaudeEnv({ baseUrl, home, apiKey, extra }),
      timeoutMs: 120_000,
    });
  };

  it("the provider receives the same bytes with and without the gateway, and the gateway's cost is the CLI's", async () => {
    const home = join(dir, "home");
    const cwd = join(dir, "project");
    // The same home and working directory for every run: the CLI's device id and paths agree.
    const without = await turn(direct.url, PROVIDER_KEY, home, cwd);
    expect(without.ok).toBe(true);
    const credential = bench.gateway.issue({ projectKey: "wire" });
    credential.attach({ turnId: "wire-turn", userKey: "anna" });
    const through = await turn(
      credential.env.ANTHROPIC_BASE_URL,
      credential.env.ANTHROPIC_API_KEY,
      home,
      cwd,
    );
    credential.detach();
    credential.revoke();
    expect(through.ok).toBe(true);

    const sent = direct.requests.map(comparable);
    const forwarded = bench.fake.requests.map(comparable);
    expect(forwarded.length).toBe(1);
    expect(forwarded).toEqual(sent);
    expect(bench.fake.requests[0]?.headers["x-api-key"]).toBe(PROVIDER_KEY);

    // The CLI's own 5-minute cache: its writes priced at $5, as the CLI prices them.
    const usage = await bench.gateway.turnUsage("wire-turn");
    expect(through.ok && through.totalCostUsd).toBeGreaterThan(0);
    expect(usage?.costUsd).toBe(roundUsd(through.ok ? (through.totalCostUsd ?? -1) : -1));
    const reported = through.ok ? through.usage : null;
    expect(usage).toMatchObject({
      requests: 1,
      inputTokens: reported?.inputTokens,
      cacheWrite5mTokens: reported?.cacheCreationInputTokens,
      cacheWrite1hTokens: 0,
      cacheReadTokens: reported?.cacheReadInputTokens,
      outputTokens: reported?.outputTokens,
      models: ["claude-opus-5-5"],
      miss: { reason: "new_session" },
    });
  });

  it("prices 1-hour writes as the CLI does (ENABLE_PROMPT_CACHING_1H, as both services run it)", async () => {
    const credential = bench.gateway.issue({ projectKey: "wire" });
    credential.attach({ turnId: "wire-turn-1h", userKey: "anna" });
    const through = await turn(
      credential.env.ANTHROPIC_BASE_URL,
      credential.env.ANTHROPIC_API_KEY,
      join(dir, "home-1h"),
      join(dir, "project-1h"),
      { ENABLE_PROMPT_CACHING_1H: "1" },
    );
    credential.revoke();
    expect(through.ok).toBe(true);
    const usage = await bench.gateway.turnUsage("wire-turn-1h");
    expect(usage?.cacheWrite1hTokens).toBeGreaterThan(0);
    expect(usage?.cacheWrite5mTokens).toBe(0);
    expect(usage?.costUsd).toBe(roundUsd(through.ok ? (through.totalCostUsd ?? -1) : -1));
  });

  it("a refusal over a limit is one request: the CLI does not retry it, and nothing reaches the provider", async () => {
    const gateway = await bench.restart({
      limits: limitSettings({ TALKIDE_LIMIT_PROJECT_DAY_USD: 0 }),
    });
    const before = bench.fake.requests.length;
    const credential = gateway.issue({ projectKey: "over" });
    credential.attach({ turnId: "refused-turn", userKey: "anna" });
    const refused = await turn(
      credential.env.ANTHROPIC_BASE_URL,
      credential.env.ANTHROPIC_API_KEY,
      join(dir, "home-2"),
      join(dir, "project-2"),
    );
    credential.revoke();
    expect(refused.ok).toBe(false);
    expect(bench.fake.requests.length).toBe(before);
    const { rows } = await sql<{
      status: number;
    }>`SELECT status FROM gateway_requests WHERE turn_id = 'refused-turn'`.execute(bench.db);
    expect(rows).toEqual([{ status: 429 }]);
    expect(await gateway.refusalOf("refused-turn")).toMatchObject({
      scope: "project",
      period: "day",
      setting: "TALKIDE_LIMIT_PROJECT_DAY_USD",
    });
  });
});
