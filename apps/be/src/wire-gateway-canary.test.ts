import { lstat, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  sandboxSuiteCanRun,
  startFakeMessagesApi,
  type FakeMessagesApi,
  type FakeReply,
} from "@talkide/claude-cli/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "./test-support/harness.ts";
import { REAL_CLAUDE, realClaudeCanRun } from "./test-support/wire-harness.ts";
import { storedRunsAsText, storedSessionsAsText } from "./test-support/engine-sessions.ts";

const canRun = realClaudeCanRun("the @talkide/be gateway canary wire suite");
const sandboxRuns = canRun && (await sandboxSuiteCanRun("the @talkide/be gateway canary suite"));

/** The provider key the service is given: it must reach the provider and nothing else. */
const CANARY = "sk-ant-api03-GATEWAYCANARY-5b1e9d";

interface SeenProcess {
  readonly pid: number;
  readonly environ: string;
  readonly cmdline: string;
}

async function procFile(pid: number, file: string): Promise<string> {
  return readFile(`/proc/${pid}/${file}`, "latin1").catch(() => "");
}

/**
 * The live processes of the service's CLIs and everything they started: each `claude` is found
 * by the gateway's URL in its environment, its descendants by their parent pids (a sandboxed
 * command may carry another environment).
 */
async function turnProcesses(gatewayUrl: string): Promise<SeenProcess[]> {
  const all = new Map<number, { parent: number; environ: string; cmdline: string }>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = await procFile(pid, "stat");
    const match = /\) (\S) (\d+)/.exec(stat);
    if (match === null || match[1] === "Z") continue;
    all.set(pid, {
      parent: Number(match[2]),
      environ: await procFile(pid, "environ"),
      cmdline: await procFile(pid, "cmdline"),
    });
  }
  const roots = [...all].filter(([, p]) =>
    p.environ.split("\0").includes(`ANTHROPIC_BASE_URL=${gatewayUrl}`),
  );
  const found = new Map(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, p] of all) {
      if (!found.has(pid) && found.has(p.parent)) {
        found.set(pid, p);
        grew = true;
      }
    }
  }
  return [...found].map(([pid, p]) => ({ pid, environ: p.environ, cmdline: p.cmdline }));
}

/** Every file under `dir` (links and sockets are not followed), as its path and bytes. */
async function filesUnder(dir: string): Promise<Array<{ path: string; bytes: Buffer }>> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  const walk = async (path: string): Promise<void> => {
    const info = await lstat(path).catch(() => null);
    if (info === null) return;
    if (info.isDirectory()) {
      for (const entry of await readdir(path)) await walk(join(path, entry));
    } else if (info.isFile()) {
      const bytes = await readFile(path).catch(() => null);
      if (bytes !== null) out.push({ path, bytes });
    }
  };
  await walk(dir);
  return out;
}

async function waitUntil<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 600; i += 1) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`waited in vain for ${what}`);
}

/**
 * Issue 51's canary: the provider key the service holds reaches the provider and nothing else.
 * While a turn runs (the fake provider holds its answer, or the agent's sandboxed command
 * sleeps), no process of the turn has it in its environment or argv; afterwards it is in no file
 * of the data directory (the CLI's config and scratch dirs, settings, transcripts, the
 * workspaces, the database), no turn record, no API answer; and every request the provider got
 * carried it in `x-api-key`, never a process's token.
 */
describe.skipIf(!canRun).each([
  { setting: "the default tools", rules: null },
  { setting: "TALKIDE_CLAUDE_ALLOWED_TOOLS=Bash(*) (sandboxed)", rules: "Bash(*)" },
])("at the wire, with $setting: the provider key stays in the gateway", ({ rules }) => {
  const runs = rules === null || sandboxRuns;
  let fake: FakeMessagesApi;
  let harness: Harness;
  let anna: TestUser;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tmpdir = process.env["TMPDIR"];
  let home: string | null = null;

  beforeAll(async () => {
    if (!runs) return;
    if (rules !== null) process.env["TMPDIR"] = "/var/tmp"; // the sandbox's /dev is its own
    fake = await startFakeMessagesApi({
      keepCredentials: true,
      reply: async (request): Promise<FakeReply> => {
        if (JSON.stringify(request.body).includes('"tool_result"')) return { text: "Hotovo." };
        if (rules === null) {
          // The default tools run no command: the answer waits while the test looks.
          await held;
          return { text: "Hotovo." };
        }
        return {
          content: [
            {
              type: "tool_use",
              id: "toolu_01Sleep",
              name: "Bash",
              input: { command: "sleep 4; echo slept", description: "Waits" },
            },
          ],
        };
      },
    });
    harness = await startHarness({
      env: {
        TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "",
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: CANARY,
        ...(rules === null ? {} : { TALKIDE_CLAUDE_ALLOWED_TOOLS: rules }),
      },
    });
    if (rules !== null) {
      home = join(harness.dataDir, "..", `${basename(harness.dataDir)}-home`);
      await mkdir(home, { recursive: true });
      harness.claudeEnv["HOME"] = home;
    }
    anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
  });
  afterAll(async () => {
    if (!runs) return;
    release();
    await harness.close();
    await fake.close();
    if (home !== null) await rm(home, { recursive: true, force: true });
    if (tmpdir === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = tmpdir;
  });

  it.skipIf(!runs)(
    "is in no process, file, record or answer; the provider got it, never a token",
    async () => {
      const created = await api<{ project: { id: number; workspaceDir: string } }>(
        harness,
        anna.token,
        "POST",
        "/v1/projects",
        defaultProject,
      );
      const projectId = created.body.project.id;
      const gatewayUrl = harness.service.gateway.url;
      const turn = sendMessage(harness, anna.token, projectId, "Počkej chvíli.");

      // While the turn runs: the CLI, and for the sandboxed setting its command too.
      const seen = await waitUntil(async () => {
        const processes = await turnProcesses(gatewayUrl);
        const ready =
          rules === null
            ? processes.length > 0 && fake.messageRequests().length > 0
            : processes.some((p) => p.cmdline.includes("sleep"));
        return ready ? processes : null;
      }, "the turn's processes");
      release();
      const tokens = new Set<string>();
      for (const process of seen) {
        expect(process.environ, `environment of ${process.pid}`).not.toContain(CANARY);
        expect(process.cmdline, `argv of ${process.pid}`).not.toContain(CANARY);
        const token = /(?:^|\0)ANTHROPIC_API_KEY=(tkgw_[A-Za-z0-9_-]+)/.exec(process.environ)?.[1];
        if (token !== undefined) tokens.add(token);
      }
      expect(seen.length).toBeGreaterThan(rules === null ? 0 : 1);
      expect(tokens.size).toBeGreaterThan(0);

      const done = terminalEvent((await turn).events);
      expect(done.event, JSON.stringify(done.data)).toBe("turn.succeeded");

      // The provider got the key on every request, never a process's token.
      expect(fake.messageRequests().length).toBeGreaterThan(0);
      for (const request of fake.requests) {
        expect(request.headers["x-api-key"]).toBe(CANARY);
        const headers = JSON.stringify(request.headers);
        for (const token of tokens) {
          expect(headers).not.toContain(token);
          expect(request.rawBody).not.toContain(token);
        }
        expect(request.rawBody).not.toContain(CANARY);
      }

      // No file of the service holds it: the CLI's config dir (settings, transcripts), its
      // scratch dir, Mara's plugin, the workspaces, the embedded database; nor the command's home.
      const files = [
        ...(await filesUnder(harness.dataDir)),
        ...(home === null ? [] : await filesUnder(home)),
      ];
      expect(files.some((f) => f.path.includes(join("claude", "projects")))).toBe(true);
      expect(files.filter((f) => f.bytes.includes(CANARY)).map((f) => f.path)).toEqual([]);

      // No record holds it, and no answer of the API.
      const db = harness.service.database.db;
      const records = await sql<{ text: string }>`
      SELECT e::text AS text FROM turn_events e
      UNION ALL SELECT t::text FROM turns t
      UNION ALL SELECT g::text FROM gateway_requests g`.execute(db);
      expect(records.rows.length).toBeGreaterThan(0);
      const sessions = await storedSessionsAsText(db);
      expect(sessions.length).toBeGreaterThan(0);
      const runs = await storedRunsAsText(db);
      expect(runs.length).toBeGreaterThan(0);
      for (const text of [...records.rows.map((row) => row.text), ...runs, ...sessions])
        expect(text).not.toContain(CANARY);
      const answers = await Promise.all(
        [
          `/v1/projects/${projectId}/turns`,
          `/v1/projects/${projectId}/turns/${String(done.data.turnId)}/events`,
          `/v1/projects/${projectId}/usage`,
          `/v1/projects/${projectId}/context`,
          `/v1/projects/${projectId}`,
        ].map((path) => api(harness, anna.token, "GET", path)),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.text).not.toContain(CANARY);
      }
      // And no log line.
      expect(harness.logs.join("\n")).not.toContain(CANARY);
    },
    300_000,
  );
});
