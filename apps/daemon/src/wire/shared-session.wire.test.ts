import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  lastUserPrompt,
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  startFakeMessagesApi,
  type FakeMessagesApi,
} from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresBackend } from "@talkide/service-kit/testing";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

const canRun = realClaudeSuiteCanRun("The daemon's shared-session wire suite");
const backend = postgresBackend("The daemon's PostgreSQL server suites");

/**
 * The session belongs to the database, not to a machine: two daemons on one server database,
 * each with its own Claude Code config dir (as on two machines), run alternate turns of one
 * conversation with the real CLI. Each turn's request at the wire carries every earlier
 * exchange, and a failed turn never reaches a later one.
 */
describe.skipIf(!canRun || !backend.available)("a session resumed by another daemon", () => {
  const POISON = "Quokka-refused-41c9";
  let dir: string;
  let api: FakeMessagesApi;
  const running: TestDaemon[] = [];

  beforeAll(async () => {
    await backend.setup();
    dir = await makeTempDir();
    await mkdir(join(dir, "home", "tmp"), { recursive: true });
    api = await startFakeMessagesApi({
      reply: (request) => {
        if (request.rawBody.includes(POISON)) {
          return {
            error: { status: 400, type: "invalid_request_error", message: "refused by gateway" },
          };
        }
        const prompt = lastUserPrompt(request) ?? "";
        const word = /Word (\w+)\./.exec(prompt)?.[1] ?? "none";
        return { text: `Noted ${word}.` };
      },
    });
  });

  afterAll(async () => {
    for (const td of running) await td.stop().catch(() => undefined);
    await api.close();
    await removeDir(dir);
    await backend.teardown();
  });

  it("carries every exchange to the daemon that runs the next turn, and never a failed one", async () => {
    const databaseUrl = await backend.newDatabase();
    const home = join(dir, "home");
    const start = async (name: string) => {
      const td = await startTestDaemon({
        dataDir: join(dir, name),
        config: {
          databaseUrl,
          claudePath: REAL_CLAUDE_PATH ?? "",
          concurrency: 1,
          turnTimeoutMs: 120_000,
        },
        childBaseEnv: realClaudeEnv({
          baseUrl: api.url,
          home,
          extra: { TMPDIR: join(home, "tmp"), CLAUDE_CODE_MAX_RETRIES: "0" },
        }),
        killGraceMs: 2000,
      });
      running.push(td);
      return td;
    };
    const turn = async (td: TestDaemon, text: string) => {
      const before = api.messageRequests().length;
      const ack = await td.api.deliver("ava", makeDelivery({ conversation_id: "c-1", text }));
      const [done] = await td.api.settled([ack.body.delivery.id]);
      return { done, requests: api.messageRequests().slice(before) };
    };

    const a = await start("daemon-a");
    await a.api.registerAgent("ava", join(dir, "ws"));
    const first = await turn(a, "Word alpha.");
    expect(first.done?.state).toBe("completed");
    await a.stop();

    // Another daemon, another config dir: only the database has the session.
    const b = await start("daemon-b");
    const second = await turn(b, "Word bravo.");
    expect(second.done?.state).toBe("completed");
    const secondBody = second.requests[0]?.rawBody ?? "";
    expect(secondBody).toContain("Word alpha.");
    expect(secondBody).toContain("Noted alpha.");
    expect(secondBody).toContain("Word bravo.");

    const refused = await turn(b, `Word ${POISON}.`);
    expect(refused.done).toMatchObject({ state: "failed", failureReason: "is_error" });
    await b.stop();

    // Back on the first daemon, whose own copy stopped after its turn: the database's wins.
    const a2 = await start("daemon-a");
    const fourth = await turn(a2, "Word delta.");
    expect(fourth.done?.state).toBe("completed");
    const body = fourth.requests[0]?.rawBody ?? "";
    for (const seen of [
      "Word alpha.",
      "Noted alpha.",
      "Word bravo.",
      "Noted bravo.",
      "Word delta.",
    ]) {
      expect(body).toContain(seen);
    }
    expect(body).not.toContain(POISON);
    // One session all along: every turn resumed the runtime session of the first.
    const turns = (await a2.api.turns("&agentId=ava")).reverse();
    expect(new Set(turns.map((t) => t.runtimeSessionId)).size).toBe(1);
  }, 300_000);
});
