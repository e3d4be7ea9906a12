import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { sandboxSettings } from "@talkide/claude-cli";
import { readFakeClaudeRecords, type FakeClaudeRecord } from "@talkide/claude-cli/testing";
import {
  buildInboundWakePrompt,
  buildStandingPrompt,
  parseDelivery,
  STANDING_PROMPT,
  standingPromptVersion,
} from "@talkide/prompts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DaemonConfig } from "../config.ts";
import { TICLAWK_ENTRIES } from "../runtime/ticlawk-wrapper.ts";
import type { Backend } from "@talkide/service-kit/testing";
import {
  makeDelivery,
  makeTempDir,
  perMessageEnv,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "./harness.ts";

const PRINT_FLAGS = ["-p", "--output-format", "stream-json", "--verbose"];
const EXTRA = ["--exclude-dynamic-system-prompt-sections", "--allowedTools", "Bash(ticlawk:*)"];
/**
 * The turn's sandbox (issue 49) for an agent of a daemon on `dir` with no other agents: the
 * data dir and the CLI's config dir denied, the wrapper's dir and the session's env file
 * readable, no network (no upstream). No key in it: the model gateway holds the key.
 */
function sandboxArgs(dir: string, workspace: string, sessionId: string): string[] {
  return [
    "--settings",
    JSON.stringify(
      sandboxSettings(workspace, {
        denyRead: [dir, join(dir, "claude")],
        allowRead: [join(dir, "bin"), join(dir, "turn-env", `${sessionId}.sh`)],
        allowedHosts: [],
      }),
    ),
  ];
}
/** Every turn sends its wake prompt as one stream-json line (a warm process reads the next). */
const STREAM_JSON_INPUT = ["--input-format", "stream-json"];

/**
 * Sessions and the runtime, end to end: real HTTP, a real database (the backend), real
 * child processes; the fake `claude` stands in for the model and records how it was run.
 */
export function defineSessionSuite(backend: Backend): void {
  describe.skipIf(!backend.available)(
    `sessions and the claude-code runtime (${backend.name})`,
    () => {
      const cleanups: (() => Promise<void>)[] = [];
      beforeAll(() => backend.setup(), 60_000);
      // Each test's daemons stop when it ends: an idle daemon's queue keeps polling and
      // supervising its database, which on the embedded one runs in this worker's thread.
      afterEach(async () => {
        for (const step of cleanups.splice(0).reverse()) await step();
      });
      afterAll(() => backend.teardown());

      /** A daemon on a fresh data dir and database; `recordFile` collects the fake's records. */
      async function daemon(
        options: {
          config?: Partial<DaemonConfig>;
          env?: Map<string, Record<string, string>>;
          childEnv?: Record<string, string>;
          reuse?: { dir: string; databaseUrl: string | null };
          standingPrompt?: { text: string; version: string };
        } = {},
      ) {
        const dir = options.reuse?.dir ?? (await makeTempDir());
        const databaseUrl =
          options.reuse === undefined ? await backend.newDatabase() : options.reuse.databaseUrl;
        if (options.reuse === undefined) cleanups.push(() => removeDir(dir));
        const recordFile = join(dir, "records.jsonl");
        const td = await startTestDaemon({
          dataDir: dir,
          // This suite pins a process per turn ("cold"), whose argv, environment and failures
          // it checks turn by turn; warm turns have their own suite (warm-turns.test.ts).
          config: { databaseUrl, warmProcesses: 0, ...options.config },
          childEnv: {
            FAKE_CLAUDE_RECORD: recordFile,
            FAKE_CLAUDE_STATE_DIR: join(dir, "fake-claude"),
            ...options.childEnv,
          },
          extensions: [perMessageEnv(options.env ?? new Map<string, Record<string, string>>())],
          ...(options.standingPrompt === undefined
            ? {}
            : { standingPrompt: options.standingPrompt }),
        });
        let stopped = false;
        const stop = async () => {
          if (!stopped) await td.stop();
          stopped = true;
        };
        cleanups.push(stop);
        const records = async (): Promise<FakeClaudeRecord[]> => readFakeClaudeRecords(recordFile);
        const recordOf = async (messageId: string): Promise<FakeClaudeRecord[]> =>
          (await records()).filter((r) => r.env["TICLAWK_MESSAGE_ID"] === messageId);
        return { td, dir, databaseUrl, records, recordOf, stop };
      }

      async function deliverAndSettle(
        td: TestDaemon,
        agentId: string,
        delivery: Record<string, unknown>,
      ) {
        const r = await td.api.deliver(agentId, delivery);
        expect(r.status).toBe(202);
        const [done] = await td.api.settled([r.body.delivery.id]);
        if (done === undefined) throw new Error("delivery vanished");
        return done;
      }

      it("starts a conversation's first turn fresh, resumes later turns, and gives another conversation its own session", async () => {
        const { td, dir, recordOf } = await daemon();
        await td.api.registerAgent("alice", join(dir, "ws-alice"));
        const m1 = makeDelivery({ conversation_id: "c-a", conversation_name: "alpha" });
        const m2 = makeDelivery({ conversation_id: "c-a", conversation_name: "alpha" });
        const m3 = makeDelivery({ conversation_id: "c-b", conversation_name: "beta" });
        for (const m of [m1, m2, m3])
          expect((await deliverAndSettle(td, "alice", m)).state).toBe("completed");

        const [r1] = await recordOf(String(m1["id"]));
        const [r2] = await recordOf(String(m2["id"]));
        const [r3] = await recordOf(String(m3["id"]));
        expect(r1?.argv).not.toContain("--resume");
        expect(r3?.argv).not.toContain("--resume");
        const sessions = await td.api.sessions("&agentId=alice");
        const a = sessions.find((s) => s.conversationId === "c-a");
        const b = sessions.find((s) => s.conversationId === "c-b");
        expect(a).toMatchObject({ live: true, turnCount: 2, cumulativeCostUsd: 0.025 });
        expect(b).toMatchObject({ live: true, turnCount: 1 });
        expect(a?.runtimeSessionId).not.toBe(b?.runtimeSessionId);
        expect(r2?.argv.slice(0, 6)).toEqual([...PRINT_FLAGS, "--resume", a?.runtimeSessionId]);

        const turns = await td.api.turns("&agentId=alice");
        const t2 = turns.find((t) => t.resumed);
        expect(t2).toMatchObject({
          sessionId: a?.id,
          resumedRuntimeSessionId: a?.runtimeSessionId,
          costUsd: 0.0125,
        });
        expect(turns.filter((t) => !t.resumed)).toHaveLength(2);
      });

      it("gives the child the exact argv, cwd, stdin and environment", async () => {
        const { td, dir, recordOf } = await daemon({
          childEnv: {
            DATABASE_URL: "postgres://must-not-leak",
            TALKIDE_ADMIN_TOKEN: "tkd_must_not_leak",
          },
          config: { claudeExtraArgs: ["--model", "x"] },
        });
        const workspace = join(dir, "ws-bob");
        await td.api.registerAgent("bob", workspace);
        const first = makeDelivery({ conversation_id: "c-env", conversation_name: "env-group" });
        const second = makeDelivery({
          conversation_type: "dm",
          conversation_id: "c-env",
          conversation_name: null,
          reason: "dm",
        });
        await deliverAndSettle(td, "bob", first);
        const done = await deliverAndSettle(td, "bob", second);
        const session = (await td.api.sessions("&agentId=bob"))[0];
        const turn = (await td.api.turns(`&deliveryId=${done.id}`))[0];
        const [r1] = await recordOf(String(first["id"]));
        const [r2] = await recordOf(String(second["id"]));
        if (r1 === undefined || r2 === undefined || session === undefined || turn === undefined) {
          throw new Error("missing records");
        }

        expect(r1.argv).toEqual([
          ...PRINT_FLAGS,
          "--append-system-prompt",
          STANDING_PROMPT,
          ...EXTRA,
          ...sandboxArgs(dir, workspace, session.id),
          "--model",
          "x",
          ...STREAM_JSON_INPUT,
        ]);
        expect(r2.argv).toEqual([
          ...PRINT_FLAGS,
          "--resume",
          String(session.runtimeSessionId),
          // The last message of the last successful turn: a failed turn never becomes part of it.
          "--resume-session-at",
          expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
          "--append-system-prompt",
          STANDING_PROMPT,
          ...EXTRA,
          ...sandboxArgs(dir, workspace, session.id),
          "--model",
          "x",
          ...STREAM_JSON_INPUT,
        ]);
        expect(r2.cwd).toBe(workspace);
        const wake = buildInboundWakePrompt(parseDelivery(second));
        expect(r2.stdin).toBe(wake.text);

        const inherited = Object.fromEntries(
          Object.entries(process.env).filter(
            ([key, value]) =>
              value !== undefined &&
              !/^(DATABASE_URL|TALKIDE_ADMIN_TOKEN|TALKIDE_DAEMON_.*|TICLAWK_.*|PG(PASSWORD|USER|HOST|PORT|DATABASE)|ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|CLAUDE_CODE_OAUTH_TOKEN)$/.test(
                key,
              ),
          ),
        );
        // With a provider key in this process's environment the daemon runs its model gateway:
        // the process gets the gateway's URL and a token of its own instead of the key.
        const gateway = td.daemon.gatewayUrl;
        expect(r2.env).toEqual({
          ...inherited,
          ...(gateway === null
            ? {}
            : {
                ANTHROPIC_BASE_URL: gateway,
                ANTHROPIC_API_KEY: expect.stringMatching(/^tkgw_/) as string,
              }),
          FAKE_CLAUDE_RECORD: join(dir, "records.jsonl"),
          FAKE_CLAUDE_STATE_DIR: join(dir, "fake-claude"),
          PATH: `${join(dir, "bin")}:${process.env["PATH"] ?? ""}`,
          TICLAWK_TURN_ENV_FILE: join(dir, "turn-env", `${session.id}.sh`),
          TICLAWK_AGENT_ID: "bob",
          TICLAWK_SESSION_ID: session.id,
          TICLAWK_HOST_ID: "test-host",
          TICLAWK_CONVERSATION_ID: "c-env",
          TICLAWK_MESSAGE_ID: String(second["id"]),
          TICLAWK_TARGET: wake.target,
          TICLAWK_TURN_ID: turn.id,
          TICLAWK_DAEMON_URL: td.daemon.url,
          // The marker both apps find a turn's leftovers by: the turn that started the process.
          TALKIDE_TURN_ID: turn.id,
          // Hermetic runtime: the daemon's own config dir, no auto memory, no git status block.
          CLAUDE_CONFIG_DIR: join(dir, "claude"),
          CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
          CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1",
          // The prompt cache's lifetime (TALKIDE_PROMPT_CACHE_TTL, default 1h).
          ENABLE_PROMPT_CACHING_1H: "1",
        });
        expect(wake.target).toBe("dm:@anna");
      });

      it("puts the daemon's ticlawk command first on the child's PATH, and it runs", async () => {
        const { td, dir, recordOf } = await daemon({
          childEnv: { FAKE_CLAUDE_RUN: "command -v ticlawk; ticlawk server info" },
        });
        await td.api.registerAgent("cora", join(dir, "ws"));
        const m = makeDelivery();
        await deliverAndSettle(td, "cora", m);
        const [record] = await recordOf(String(m["id"]));
        const run = record?.run;
        expect(run?.stdout.split("\n")[0]).toBe(td.daemon.ticlawkPath);
        expect(td.daemon.ticlawkPath).toBe(join(dir, "bin", "ticlawk"));
        // Until the hub's CLI exists, the wrapper itself answers; afterwards, the CLI does.
        const cliInstalled =
          existsSync(TICLAWK_ENTRIES.source) || existsSync(TICLAWK_ENTRIES.built);
        if (cliInstalled) expect(run?.stderr ?? "").not.toContain("ticlawk_unavailable");
        else {
          expect(run?.exitCode).toBe(127);
          expect(run?.stderr).toContain('"code":"ticlawk_unavailable"');
        }
      });

      it("invalidates every session of an agent on reset; the next turn starts fresh", async () => {
        const { td, dir, recordOf } = await daemon();
        await td.api.registerAgent("dan", join(dir, "ws"));
        await deliverAndSettle(td, "dan", makeDelivery({ conversation_id: "c-1" }));
        await deliverAndSettle(td, "dan", makeDelivery({ conversation_id: "c-2" }));
        const before = await td.api.sessions("&agentId=dan&live=true");
        expect(before).toHaveLength(2);

        const reset = await td.api.call<{ invalidatedSessionIds: string[] }>(
          "POST",
          "/v1/agents/dan/reset",
        );
        expect(reset.status).toBe(200);
        expect(new Set(reset.body.invalidatedSessionIds)).toEqual(new Set(before.map((s) => s.id)));
        const after = await td.api.sessions("&agentId=dan");
        expect(after.filter((s) => s.live)).toHaveLength(0);
        expect(after.every((s) => s.invalidatedReason === "reset")).toBe(true);

        const next = makeDelivery({ conversation_id: "c-1" });
        await deliverAndSettle(td, "dan", next);
        const [record] = await recordOf(String(next["id"]));
        expect(record?.argv).not.toContain("--resume");
        const live = await td.api.sessions("&agentId=dan&live=true");
        expect(live).toHaveLength(1);
        expect(live[0]?.id).not.toBe(before.find((s) => s.conversationId === "c-1")?.id);
        expect((await td.api.call("POST", "/v1/agents/nobody/reset")).status).toBe(404);
      });

      it("starts a fresh session when the standing prompt changed, never resuming with a stale one", async () => {
        const promptA = buildStandingPrompt({ brand: "Ticlawk", cli: "ticlawk" });
        const promptB = buildStandingPrompt({ brand: "Otherbrand", cli: "ticlawk" });
        const versionA = standingPromptVersion(promptA);
        const versionB = standingPromptVersion(promptB);
        expect(versionA).not.toBe(versionB);

        const first = await daemon({ standingPrompt: { text: promptA, version: versionA } });
        await first.td.api.registerAgent("eve", join(first.dir, "ws"));
        await deliverAndSettle(first.td, "eve", makeDelivery({ conversation_id: "c-rot" }));
        const resumedA = makeDelivery({ conversation_id: "c-rot" });
        await deliverAndSettle(first.td, "eve", resumedA);
        expect((await first.recordOf(String(resumedA["id"])))[0]?.argv).toContain("--resume");
        const [oldSession] = await first.td.api.sessions("&agentId=eve");
        expect(oldSession?.standingPromptVersion).toBe(versionA);
        await first.stop();

        const second = await daemon({
          reuse: { dir: first.dir, databaseUrl: first.databaseUrl },
          standingPrompt: { text: promptB, version: versionB },
        });
        const afterUpgrade = makeDelivery({ conversation_id: "c-rot" });
        await deliverAndSettle(second.td, "eve", afterUpgrade);
        const [record] = await second.recordOf(String(afterUpgrade["id"]));
        const sessions = await second.td.api.sessions("&agentId=eve");
        const fresh = sessions.find((s) => s.live);
        expect(record?.argv).toEqual([
          ...PRINT_FLAGS,
          "--append-system-prompt",
          promptB,
          ...EXTRA,
          ...sandboxArgs(first.dir, join(first.dir, "ws"), fresh?.id ?? ""),
          ...STREAM_JSON_INPUT,
        ]);
        expect(sessions.find((s) => s.id === oldSession?.id)).toMatchObject({
          live: false,
          invalidatedReason: "standing_prompt_changed",
        });
        expect(sessions.find((s) => s.live)).toMatchObject({
          standingPromptVersion: versionB,
          turnCount: 1,
        });
      });

      // Decided once in the turn engine (its README, "Decided once"; the backend's turns.test.ts
      // asserts the same through its API): a session begins with its first successful turn.
      it("begins a session whose first turn failed with the next turn, in place: no resume, no reset, even under a new standing prompt", async () => {
        const promptA = buildStandingPrompt({ brand: "Ticlawk", cli: "ticlawk" });
        const promptB = buildStandingPrompt({ brand: "Otherbrand", cli: "ticlawk" });
        const versionB = standingPromptVersion(promptB);
        const failing = makeDelivery({ conversation_id: "c-first" });
        const first = await daemon({
          standingPrompt: { text: promptA, version: standingPromptVersion(promptA) },
          env: new Map([[String(failing["id"]), { FAKE_CLAUDE_SCENARIO: "is_error" }]]),
        });
        await first.td.api.registerAgent("ida", join(first.dir, "ws"));
        expect(await deliverAndSettle(first.td, "ida", failing)).toMatchObject({
          state: "failed",
          failureReason: "is_error",
        });
        const [failedTurn] = await first.td.api.turns("&agentId=ida");
        const [session] = await first.td.api.sessions("&agentId=ida");
        // The CLI named a session for the failed turn; the session has not begun.
        expect(failedTurn).toMatchObject({ sessionId: session?.id, resumed: false });
        expect(failedTurn?.runtimeSessionId).toEqual(expect.any(String));
        expect(session).toMatchObject({ live: true, runtimeSessionId: null, turnCount: 0 });
        await first.stop();

        // An upgrade changed the standing prompt before the conversation's next message.
        const second = await daemon({
          reuse: { dir: first.dir, databaseUrl: first.databaseUrl },
          standingPrompt: { text: promptB, version: versionB },
        });
        const published: string[] = [];
        second.td.daemon.events.subscribe((event) => published.push(event.type));
        const next = makeDelivery({ conversation_id: "c-first" });
        expect((await deliverAndSettle(second.td, "ida", next)).state).toBe("completed");
        const [record] = await second.recordOf(String(next["id"]));
        expect(record?.argv).not.toContain("--resume");
        expect(record?.argv.slice(4, 6)).toEqual(["--append-system-prompt", promptB]);
        expect(record?.env["TICLAWK_SESSION_ID"]).toBe(session?.id);
        expect(published).not.toContain("session.reset");
        const after = await second.td.api.sessions("&agentId=ida");
        expect(after).toHaveLength(1);
        expect(after[0]).toMatchObject({
          id: session?.id,
          live: true,
          standingPromptVersion: versionB,
          turnCount: 1,
        });
        expect(after[0]?.runtimeSessionId).not.toBe(failedTurn?.runtimeSessionId);
      });

      it("marks a session the runtime no longer knows invalid and runs the same delivery again in a fresh one", async () => {
        const { td, dir, recordOf } = await daemon();
        await td.api.registerAgent("fay", join(dir, "ws"));
        await deliverAndSettle(td, "fay", makeDelivery({ conversation_id: "c-lost" }));
        const [lost] = await td.api.sessions("&agentId=fay");
        // The runtime's transcripts are gone (deleted, another machine): --resume must fail.
        await rm(join(dir, "fake-claude"), { recursive: true, force: true });

        const m = makeDelivery({ conversation_id: "c-lost" });
        const done = await deliverAndSettle(td, "fay", m);
        expect(done).toMatchObject({ state: "completed", attempts: 1 });
        const turns = (await td.api.turns(`&deliveryId=${done.id}`)).reverse();
        expect(turns.map((t) => [t.state, t.resumed, t.failureReason])).toEqual([
          ["failed", true, "unknown_session"],
          ["completed", false, null],
        ]);
        const records = await recordOf(String(m["id"]));
        expect(records.map((r) => r.argv.includes("--resume"))).toEqual([true, false]);
        const sessions = await td.api.sessions("&agentId=fay");
        expect(sessions.find((s) => s.id === lost?.id)).toMatchObject({
          live: false,
          invalidatedReason: "unknown_session",
        });
        expect(sessions.filter((s) => s.live)).toHaveLength(1);
      });

      describe("runtime failures end the turn with a clear reason and leave the session usable", () => {
        it.each([
          // In the engine's words, never the CLI's own ("API Error: …" stays in the log).
          ["is_error", { FAKE_CLAUDE_SCENARIO: "is_error" }, "is_error", /^The model provider/],
          [
            "crash",
            { FAKE_CLAUDE_SCENARIO: "crash" },
            "crashed",
            /^The agent runtime stopped before it finished this turn/,
          ],
          [
            "hang",
            { FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_IGNORE_SIGTERM: "1" },
            "timeout",
            /no result within 20000 ms/,
          ],
          [
            "garbage output",
            { FAKE_CLAUDE_SCENARIO: "garbage" },
            "protocol",
            /not a stream-json event/,
          ],
        ])("%s", async (_name, env, reason, message) => {
          const failing = makeDelivery({ conversation_id: "c-fail" });
          const { td, dir, recordOf } = await daemon({
            // A bound a healthy turn never reaches, even on a loaded machine: only "hang" hits it.
            config: { turnTimeoutMs: 20_000 },
            env: new Map([[String(failing["id"]), env]]),
          });
          await td.api.registerAgent("gus", join(dir, "ws"));
          await deliverAndSettle(td, "gus", makeDelivery({ conversation_id: "c-fail" }));
          const [session] = await td.api.sessions("&agentId=gus");

          const failed = await deliverAndSettle(td, "gus", failing);
          expect(failed).toMatchObject({ state: "failed", failureReason: reason });
          expect(failed.failureMessage).toMatch(message);
          expect(failed.failureMessage).not.toMatch(/API Error/);
          const [turn] = await td.api.turns(`&deliveryId=${failed.id}`);
          expect(turn).toMatchObject({ state: "failed", failureReason: reason });

          const after = makeDelivery({ conversation_id: "c-fail" });
          expect((await deliverAndSettle(td, "gus", after)).state).toBe("completed");
          const [record] = await recordOf(String(after["id"]));
          expect(record?.argv.slice(4, 6)).toEqual(["--resume", session?.runtimeSessionId]);
          expect((await td.api.sessions("&agentId=gus"))[0]).toMatchObject({
            id: session?.id,
            live: true,
            turnCount: 2,
          });
        });

        it("a missing claude binary", async () => {
          const first = await daemon({ config: { claudePath: "/nonexistent/claude" } });
          await first.td.api.registerAgent("hal", join(first.dir, "ws"));
          const status = await first.td.api.call<{ claude: { version: string | null } }>(
            "GET",
            "/v1/status",
          );
          expect(status.body.claude.version).toBeNull();
          const failed = await deliverAndSettle(
            first.td,
            "hal",
            makeDelivery({ conversation_id: "c-bin" }),
          );
          expect(failed).toMatchObject({ state: "failed", failureReason: "binary_missing" });
          expect(failed.failureMessage).toMatch(/not found at "\/nonexistent\/claude"/);
          await first.stop();

          // Installed later: the same conversation's session is used for its first real turn.
          const second = await daemon({
            reuse: { dir: first.dir, databaseUrl: first.databaseUrl },
          });
          const [session] = await second.td.api.sessions("&agentId=hal");
          expect(session).toMatchObject({ live: true, runtimeSessionId: null, turnCount: 0 });
          expect(
            (await deliverAndSettle(second.td, "hal", makeDelivery({ conversation_id: "c-bin" })))
              .state,
          ).toBe("completed");
          expect((await second.td.api.sessions("&agentId=hal"))[0]).toMatchObject({
            id: session?.id,
            turnCount: 1,
          });
        });
      });
    },
  );
}
