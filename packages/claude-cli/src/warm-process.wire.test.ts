import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildClaudeArgs } from "./claude-args.ts";
import { runOneTurn } from "./testing/one-turn.ts";
import type { ClaudeTurnSuccess } from "./turn-result.ts";
import { readRuntimeTranscript, writeRuntimeTranscript } from "./runtime-transcript.ts";
import { startFakeMessagesApi, type FakeMessagesApi } from "./testing/fake-messages-api.ts";
import { processesWithMarker } from "./testing/processes.ts";
import { REAL_CLAUDE_PATH, realClaudeEnv, realClaudeSuiteCanRun } from "./testing/real-claude.ts";
import { lastUserPrompt } from "./testing/wire.ts";
import { WarmClaudeProcess } from "./warm-process.ts";

const canRun = realClaudeSuiteCanRun("claude-cli wire suite (warm process)");

const EXCLUDE = "--exclude-dynamic-system-prompt-sections";
const REFUSED = "Refused-by-gateway-7c1";
const SLOW = "Slow-answer-55e";
const MARKER = "TALKIDE_WARM_TEST";

/**
 * The real CLI kept warm (`--input-format stream-json`) against a cold resume of the same
 * session, at the wire: the same request bytes for the same message. And the rules of
 * warm-process.ts: a failed or aborted turn ends the process and its group.
 */
describe.skipIf(!canRun)("a warm Claude Code process at the wire", () => {
  const claudePath = REAL_CLAUDE_PATH ?? "";
  let api: FakeMessagesApi;
  let root: string;
  let project: string;
  let env: Record<string, string>;
  let configDir: string;

  beforeAll(async () => {
    api = await startFakeMessagesApi({
      reply: async (request) => {
        const prompt = lastUserPrompt(request) ?? "";
        if (prompt.includes(REFUSED)) {
          return { error: { status: 400, type: "invalid_request_error", message: "refused" } };
        }
        if (prompt.includes(SLOW)) await new Promise((resolve) => setTimeout(resolve, 30_000));
        return { text: `Noted: ${prompt}` };
      },
    });
    root = await mkdtemp(join(tmpdir(), "claude-wire-warm-"));
    project = join(root, "project");
    await mkdir(join(project, ".talkide"), { recursive: true });
    await writeFile(
      join(project, "CLAUDE.md"),
      "# Alpha\n\nA shop.\n\n@.talkide/active-writer.md\n",
    );
    await writeFile(join(project, ".talkide", "active-writer.md"), "Anna writes.\n");
    const home = join(root, "home");
    await mkdir(join(home, "tmp"), { recursive: true });
    env = realClaudeEnv({
      baseUrl: api.url,
      home,
      extra: { CLAUDE_CODE_MAX_RETRIES: "0", [MARKER]: root },
    });
    configDir = join(home, ".claude");
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  const requestOf = (prompt: string) => {
    const request = api
      .messageRequests()
      .filter((r) => lastUserPrompt(r) === prompt)
      .at(-1);
    if (request === undefined) throw new Error(`no request carried ${prompt}`);
    return request;
  };

  async function cold(prompt: string, resume?: ClaudeTurnSuccess): Promise<ClaudeTurnSuccess> {
    const result = await runOneTurn({
      claudePath,
      cwd: project,
      prompt,
      env,
      timeoutMs: 120_000,
      extraArgs: [EXCLUDE],
      ...(resume === undefined
        ? {}
        : {
            resumeSessionId: resume.sessionId,
            resumeAtMessageId: resume.lastMessageId ?? undefined,
          }),
    });
    if (!result.ok) throw new Error(`cold turn failed: ${result.message}`);
    return result;
  }

  function warm(after: ClaudeTurnSuccess): Promise<WarmClaudeProcess> {
    return WarmClaudeProcess.start({
      claudePath,
      cwd: project,
      env,
      killGraceMs: 2000,
      args: buildClaudeArgs({
        resumeSessionId: after.sessionId,
        resumeAtMessageId: after.lastMessageId ?? undefined,
        extraArgs: [EXCLUDE],
      }),
    });
  }

  it("sends the same request bytes as a cold resume through stream-json, turn after turn", async () => {
    const prompts = ["Message two.", "Message three."];
    const bodies = () => prompts.map((p) => requestOf(p).rawBody);
    const first = await cold("Message one.");
    const afterFirst = await readRuntimeTranscript(configDir, first.sessionId);
    if (afterFirst === null) throw new Error("the first turn left no transcript");

    // Cold as the apps run it: the message as a stream-json line, one process per turn.
    let last = first;
    for (const prompt of prompts) last = await cold(prompt, last);
    const coldStreamJson = bodies();

    // Warm: one process for both turns, from the same point of the same session.
    expect(await writeRuntimeTranscript(configDir, afterFirst)).toBe(true);
    const warmProcess = await warm(first);
    try {
      for (const prompt of prompts) {
        const result = await warmProcess.runTurn({ prompt, timeoutMs: 120_000 });
        expect(result).toMatchObject({ ok: true, sessionId: first.sessionId });
        expect(warmProcess.idle).toBe(true);
      }
    } finally {
      await warmProcess.end();
    }
    expect(bodies()).toEqual(coldStreamJson);
  });

  it("ends the process with a failed turn, so nothing of it reaches a later one", async () => {
    const first = await cold("Before the refusal.");
    const warmProcess = await warm(first);
    const refused = await warmProcess.runTurn({ prompt: `Say ${REFUSED}.`, timeoutMs: 120_000 });
    expect(refused).toMatchObject({ ok: false, reason: "is_error" });
    await warmProcess.end();
    expect(warmProcess.ended).toBe(true);
    expect(await warmProcess.runTurn({ prompt: "Anyone there?", timeoutMs: 10_000 })).toMatchObject(
      {
        ok: false,
        reason: "crashed",
      },
    );
  });

  it("ends the whole process group on abort, with the turn reported as aborted", async () => {
    const first = await cold("Before the slow one.");
    const warmProcess = await warm(first);
    const abort = new AbortController();
    const pending = warmProcess.runTurn({
      prompt: `Say ${SLOW}.`,
      timeoutMs: 120_000,
      signal: abort.signal,
    });
    // Aborted once the model call is under way.
    for (;;) {
      if (api.messageRequests().some((r) => (lastUserPrompt(r) ?? "").includes(SLOW))) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    abort.abort();
    expect(await pending).toMatchObject({ ok: false, reason: "aborted" });
    await warmProcess.end();
    expect(await processesWithMarker(MARKER, root)).toEqual([]);
  });

  it("exits on its own when the service holding it dies by SIGKILL (its input closes)", async () => {
    // A service that keeps a warm process, killed with no chance to end it (and no watchdog):
    // the process reads its messages from the service's pipe, which the kernel closes.
    const owner = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `
        const { WarmClaudeProcess } = await import(${JSON.stringify(new URL("./warm-process.ts", import.meta.url).href)});
        const { buildClaudeArgs } = await import(${JSON.stringify(new URL("./claude-args.ts", import.meta.url).href)});
        const p = await WarmClaudeProcess.start({
          claudePath: ${JSON.stringify(claudePath)},
          cwd: ${JSON.stringify(project)},
          args: buildClaudeArgs({ extraArgs: [${JSON.stringify(EXCLUDE)}] }),
          env: JSON.parse(process.env.WARM_ENV),
        });
        const result = await p.runTurn({ prompt: "Keep me warm.", timeoutMs: 120000 });
        process.stdout.write(JSON.stringify({ ok: result.ok, pid: p.pid }) + "\\n");
        setInterval(() => undefined, 60000);
        `,
      ],
      {
        env: { ...process.env, WARM_ENV: JSON.stringify(env) },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let text = "";
      owner.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        if (text.includes("\n")) resolve(text.split("\n")[0] ?? "");
      });
      owner.once("exit", () => {
        reject(new Error(`the owner exited early: ${text}`));
      });
    });
    const kept = JSON.parse(line) as { ok: boolean; pid: number };
    expect(kept.ok).toBe(true);
    expect(await processesWithMarker(MARKER, root)).toContain(kept.pid);
    owner.kill("SIGKILL");
    // A bound, not a timing assertion: the CLI sees the end of its input and exits.
    const deadline = Date.now() + 60_000;
    while ((await processesWithMarker(MARKER, root)).length > 0) {
      if (Date.now() > deadline) throw new Error("the warm process outlived its owner");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});
