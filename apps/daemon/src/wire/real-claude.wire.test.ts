import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  lastUserPrompt,
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  startFakeMessagesApi,
  systemBlocks,
  type FakeMessagesApi,
  type RecordedRequest,
  realClaudeSuiteCanRun,
} from "@talkide/claude-cli/testing";
import { buildInboundWakePrompt, parseDelivery, STANDING_PROMPT } from "@talkide/prompts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TICLAWK_ENTRIES } from "../runtime/ticlawk-wrapper.ts";
import {
  makeDelivery,
  makeDiskTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

const canRun = realClaudeSuiteCanRun("The daemon's real-claude wire suite");

/** Tool calls and tool results are content blocks the text-only readers leave out. */
interface Block {
  type: string;
  text?: string;
  content?: unknown;
  is_error?: boolean;
  tool_use_id?: string;
}
function blocksOf(request: RecordedRequest): Block[] {
  const messages = (request.body as { messages?: { content?: unknown }[] }).messages ?? [];
  return messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : []));
}
const toolResults = (request: RecordedRequest) =>
  blocksOf(request).filter((b) => b.type === "tool_result");
const resultText = (block: Block | undefined): string =>
  typeof block?.content === "string"
    ? block.content
    : Array.isArray(block?.content)
      ? (block.content as Block[]).map((b) => b.text ?? "").join("")
      : "";

/**
 * The real Claude Code CLI (pinned) driven by the daemon against a fake Messages API on
 * loopback: what the model provider would receive.
 */
describe.skipIf(!canRun)("the daemon with the real claude CLI, at the wire", () => {
  let dir: string;
  let api: FakeMessagesApi;
  let td: TestDaemon;
  const m1 = makeDelivery({
    conversation_id: "c-one",
    conversation_name: "one",
    text: "First message, please check.",
  });
  const m2 = makeDelivery({
    conversation_id: "c-one",
    conversation_name: "one",
    text: "Second message in the same group.",
  });
  const m3 = makeDelivery({
    conversation_id: "c-two",
    conversation_name: "two",
    text: "A message in another group.",
  });
  const m4 = makeDelivery({
    conversation_id: "c-one",
    conversation_name: "one",
    text: "The same group, another agent.",
  });
  /** The model refuses every request that carries this word (like a too-long input would). */
  const POISON = "Quokka-poison-7f3e";
  const m5 = makeDelivery({
    conversation_id: "c-one",
    conversation_name: "one",
    text: `Please read ${POISON}.`,
  });
  const m6 = makeDelivery({
    conversation_id: "c-one",
    conversation_name: "one",
    text: "After the refused message.",
  });
  const wake = (d: Record<string, unknown>) => buildInboundWakePrompt(parseDelivery(d)).text;
  /** The model's requests of each delivery's turn, by message id. */
  const requestsOf = new Map<string, RecordedRequest[]>();

  beforeAll(async () => {
    // On disk: the agent's commands (its `ticlawk`) run in the sandbox, which has no /dev/shm.
    dir = await makeDiskTempDir();
    const home = join(dir, "home");
    await mkdir(join(home, "tmp"), { recursive: true });
    api = await startFakeMessagesApi({
      // In the first turn the "model" runs the agent's CLI; in the third, another command.
      reply: (request) => {
        if (request.rawBody.includes(POISON)) {
          return {
            error: { status: 400, type: "invalid_request_error", message: "refused by gateway" },
          };
        }
        const prompt = lastUserPrompt(request) ?? "";
        if (toolResults(request).length > 0) return { text: "Done." };
        const probe = (id: string, command: string) => ({
          content: [
            {
              type: "tool_use" as const,
              id,
              name: "Bash",
              input: { command, description: "Probe" },
            },
          ],
        });
        if (prompt.includes(`msg=${String(m1["id"])} `))
          return probe("toolu_01TiclawkProbe", "ticlawk server info");
        if (prompt.includes(`msg=${String(m3["id"])} `))
          return probe("toolu_01OtherProbe", "touch wire-probe.txt");
        return { text: "Done." };
      },
    });
    // A decoy `ticlawk` on the inherited PATH: the daemon's own must win.
    const decoyDir = join(dir, "decoy-bin");
    await mkdir(decoyDir);
    await writeFile(join(decoyDir, "ticlawk"), "#!/bin/sh\necho DECOY-TICLAWK\n");
    await chmod(join(decoyDir, "ticlawk"), 0o755);
    td = await startTestDaemon({
      dataDir: dir,
      config: { claudePath: REAL_CLAUDE_PATH ?? "", concurrency: 1, turnTimeoutMs: 120_000 },
      childBaseEnv: realClaudeEnv({
        baseUrl: api.url,
        home,
        path: `${decoyDir}:${process.env["PATH"] ?? ""}`,
        // One request per refused turn, without the CLI's backoff between retries.
        extra: { TMPDIR: join(home, "tmp"), CLAUDE_CODE_MAX_RETRIES: "0" },
      }),
      killGraceMs: 2000,
    });
    await td.api.registerAgent("alice", join(dir, "ws-alice"));
    await td.api.registerAgent("bob", join(dir, "ws-bob"));
    for (const [agent, delivery] of [
      ["alice", m1],
      ["alice", m2],
      ["alice", m3],
      ["bob", m4],
    ] as const) {
      const before = api.messageRequests().length;
      const ack = await td.api.deliver(agent, delivery);
      const [done] = await td.api.settled([ack.body.delivery.id]);
      expect(done?.state, JSON.stringify(done)).toBe("completed");
      requestsOf.set(String(delivery["id"]), api.messageRequests().slice(before));
    }
  });

  afterAll(async () => {
    await td.stop();
    await api.close();
    await removeDir(dir);
  });

  const req = (d: Record<string, unknown>, index = 0): RecordedRequest => {
    const found = requestsOf.get(String(d["id"]))?.[index];
    if (found === undefined) throw new Error(`no request ${index} for ${String(d["id"])}`);
    return found;
  };
  const sessionHeader = (r: RecordedRequest) => r.headers["x-claude-code-session-id"];

  it("puts the standing prompt in the system prompt of the first turn, appended to the CLI's own", () => {
    const blocks = systemBlocks(req(m1));
    expect(blocks).toHaveLength(3);
    expect(blocks[2]?.text.endsWith(`\n\n${STANDING_PROMPT}`)).toBe(true);
  });

  it("sends the wake prompt as the user message", () => {
    expect(lastUserPrompt(req(m1))).toBe(wake(m1));
    expect(lastUserPrompt(req(m3))).toBe(wake(m3));
    expect(lastUserPrompt(req(m4))).toBe(wake(m4));
  });

  it("lets the agent run the daemon's ticlawk command (first on PATH, allowed without a prompt)", () => {
    const [result] = toolResults(req(m1, 1));
    expect(result?.tool_use_id).toBe("toolu_01TiclawkProbe");
    const text = resultText(result);
    expect(text).not.toMatch(/requires approval/i);
    expect(text).not.toContain("DECOY-TICLAWK");
    // The daemon's CLI ran: without a hub in this daemon it fails in its own JSON format
    // (`ticlawk_unavailable` from the wrapper, or the CLI's missing credentials).
    expect(text).toContain('{"error":{"code":"');
    if (!existsSync(TICLAWK_ENTRIES.source) && !existsSync(TICLAWK_ENTRIES.built)) {
      expect(text).toContain('"code":"ticlawk_unavailable"');
    }
  });

  it("does not open the shell beyond ticlawk", () => {
    const [result] = toolResults(req(m3, 1));
    expect(result?.tool_use_id).toBe("toolu_01OtherProbe");
    expect(result?.is_error).toBe(true);
    expect(existsSync(join(dir, "ws-alice", "wire-probe.txt"))).toBe(false);
  });

  it("resumes the conversation's session for its next turn", async () => {
    const r2 = req(m2);
    expect(sessionHeader(r2)).toBe(sessionHeader(req(m1)));
    expect(lastUserPrompt(r2)).toBe(wake(m2));
    // The history replays the first turn's prompt: the same runtime session continued.
    expect(JSON.stringify(r2.body)).toContain(JSON.stringify(wake(m1)).slice(1, -1));
    const sessions = await td.api.sessions("&agentId=alice&conversationId=c-one");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ turnCount: 2, runtimeSessionId: sessionHeader(r2) });
  });

  it("gives a second conversation, and another agent, a session of its own", () => {
    const ids = [req(m1), req(m3), req(m4)].map(sessionHeader);
    expect(new Set(ids).size).toBe(3);
    expect(JSON.stringify(req(m3).body)).not.toContain(String(m1["id"]));
  });

  it("sends byte-identical system blocks across turns, conversations and agents", () => {
    const all = [...requestsOf.values()].flat();
    expect(all.length).toBeGreaterThanOrEqual(5);
    // Within a session every request carries the very same system array.
    const sameSession = [req(m1), req(m1, 1), req(m2)];
    const first = JSON.stringify(systemBlocks(sameSession[0] ?? req(m1)));
    for (const r of sameSession) expect(JSON.stringify(systemBlocks(r))).toBe(first);
    // Across sessions, block 0 is a billing header derived from each session's first
    // message (see claude-cli's WIRE-NOTES.md); everything after it is identical.
    const rest = JSON.stringify(systemBlocks(req(m1)).slice(1));
    for (const r of all) expect(JSON.stringify(systemBlocks(r).slice(1))).toBe(rest);
  });

  it("never lets a failed turn into the session: the next turn's request holds no byte of it", async () => {
    const refused = await td.api.deliver("alice", m5);
    const [failed] = await td.api.settled([refused.body.delivery.id]);
    expect(failed?.state).toBe("failed");
    const before = api.messageRequests().length;
    const next = await td.api.deliver("alice", m6);
    const [done] = await td.api.settled([next.body.delivery.id]);
    expect(done?.state, JSON.stringify(done)).toBe("completed");
    const [request, ...more] = api.messageRequests().slice(before);
    expect(more).toHaveLength(0);
    if (request === undefined) throw new Error("the turn after the refused one sent nothing");
    expect(lastUserPrompt(request)).toBe(wake(m6));
    // The same runtime session continued from the last successful turn (m2's).
    expect(sessionHeader(request)).toBe(sessionHeader(req(m1)));
    expect(request.rawBody).toContain(JSON.stringify(wake(m2)).slice(1, -1));
    for (const trace of [POISON, String(m5["id"]), "refused by gateway", "API Error"]) {
      expect(request.rawBody).not.toContain(trace);
    }
  });
});
