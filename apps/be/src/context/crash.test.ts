import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAKE_CLAUDE_PATH } from "@talkide/claude-cli/testing";
import { afterAll, describe, expect, it } from "vitest";
import { api, defaultProject, sendMessage, terminalEvent } from "../test-support/harness.ts";

const CHILD = fileURLToPath(new URL("../test-support/service-child.ts", import.meta.url));

interface Child {
  readonly process: ChildProcessByStdio<null, Readable, Readable>;
  readonly url: string;
  /** Everything the child wrote on stdout so far. */
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startChild(dataDir: string, pauseFile: string): Promise<Child> {
  const child = spawn(process.execPath, ["--conditions=@talkide/source", CHILD], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      TALKIDE_DATA_DIR: dataDir,
      TALKIDE_PORT: "0",
      TALKIDE_CLAUDE_PATH: FAKE_CLAUDE_PATH,
      ANTHROPIC_API_KEY: "test-key",
      TALKIDE_TEST_PAUSE_FILE: pauseFile,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters) wake();
    });
  });
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stdout);
        if (match !== null) {
          waiters.delete(check);
          resolve(match);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check);
          reject(new Error(`the service exited before printing ${pattern}: ${stdout}\n${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  const listening = await waitFor(
    /"url":"(http:\/\/127\.0\.0\.1:\d+)","layout":"split","msg":"talkide-be listening"/,
  );
  return { process: child, url: listening[1] ?? "", output: () => stdout, waitFor, exited };
}

describe("killing the service in the middle of a render", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-crash-"));
  const pauseFile = join(dataDir, "pause-writes");
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("leaves the old file or the new one, never a partial one, and recovers on restart", async () => {
    const first = await startChild(dataDir, pauseFile);
    const token = (await first.waitFor(/TALKIDE_TOKEN=(tkbe_\S+)/))[1] ?? "";
    const workspace = join(dataDir, "workspaces", "project-1");
    const claudeMd = join(workspace, "CLAUDE.md");

    const turn1 = await sendMessage(first, token, 1, "first");
    expect(terminalEvent(turn1.events).event).toBe("turn.succeeded");
    const oldBytes = readFileSync(claudeMd);

    const edited = await api(first, token, "PATCH", "/v1/projects/1/members/me", {
      teamBriefing: "Nový briefing.\n".repeat(500),
    });
    expect(edited.status).toBe(200);
    const newText = (await api(first, token, "GET", "/v1/projects/1/context/CLAUDE.md")).text;
    expect(newText).not.toBe(oldBytes.toString("utf8"));

    writeFileSync(pauseFile, "");
    const posted = await api(first, token, "POST", "/v1/projects/1/messages", { text: "second" });
    expect(posted.status).toBe(202);
    const paused = await first.waitFor(/PAUSED-WRITE (\S+)/);
    expect(paused[1]).toBe(claudeMd);
    // The write is under way: its temporary file exists next to the target.
    const temporary = readdirSync(workspace).filter((name) => /^CLAUDE\.md\.\d+$/.test(name));
    expect(temporary).toHaveLength(1);
    first.process.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });

    // The old file, byte for byte.
    expect(readFileSync(claudeMd).equals(oldBytes)).toBe(true);

    rmSync(pauseFile);
    const second = await startChild(dataDir, pauseFile);
    try {
      // The interrupted write's temporary file is cleaned up, the interrupted turn is failed.
      expect(readdirSync(workspace).filter((name) => /^CLAUDE\.md\.\d+$/.test(name))).toEqual([]);
      expect(existsSync(claudeMd)).toBe(true);
      const turns = await api<{
        turns: Array<{ number: number; status: string; error: { code: string } | null }>;
      }>(second, token, "GET", "/v1/projects/1/turns");
      expect(turns.body.turns.map((t) => [t.number, t.status, t.error?.code ?? null])).toEqual([
        [2, "failed", "service_restarted"],
        [1, "succeeded", null],
      ]);
      const turn3 = await sendMessage(second, token, 1, "third");
      expect(terminalEvent(turn3.events).event).toBe("turn.succeeded");
      expect(readFileSync(claudeMd, "utf8")).toBe(newText);
      // The kill -9 gave no project id away (a sequence would have skipped its cached ids).
      const next = await api<{ project: { id: number } }>(
        second,
        token,
        "POST",
        "/v1/projects",
        defaultProject,
      );
      expect(next.body.project.id).toBe(2);
      // The demo token was printed by the first start only.
      expect(second.output()).not.toContain("TALKIDE_TOKEN=");
    } finally {
      second.process.kill("SIGTERM");
      expect(await second.exited).toEqual({ code: 0, signal: null });
    }
  }, 300_000); // a bound for a hung run only: on a loaded 2-core machine this takes minutes
});
