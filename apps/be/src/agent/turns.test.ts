import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { changedInstructionReminderBytes } from "@talkide/claude-cli";
import { readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import {
  buildMaraPlugin,
  buildMemberMessage,
  MARA_AGENT_NAME,
  maraPluginDigest,
} from "@talkide/prompts";
import type { TurnEventName } from "@talkide/be-api";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { announceTurnEvent } from "./event-notifications.ts";
import {
  addMember,
  api,
  defaultProject,
  occupyProjectIdsBelow,
  parseSse,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import { openDatabase } from "../db/connect.ts";
import {
  openProjectSession,
  pinToEarlierRelease,
  projectSessions,
  runOfTurn,
} from "../test-support/engine-sessions.ts";

interface Created {
  project: { id: number; workspaceDir: string };
  members: Array<{ id: string }>;
}

async function newProject(harness: Harness, user: TestUser, salutation = "Anna"): Promise<Created> {
  const response = await api<Created>(harness, user.token, "POST", "/v1/projects", {
    ...defaultProject,
    member: { salutation, teamBriefing: "Preferuji Pinia." },
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.body;
}

/** The events of a first turn that succeeds with the fake claude, in order. */
const ONE_TURN_EVENTS = [
  "turn.queued",
  "turn.started",
  "context.written",
  "agent.init",
  "agent.text",
  "turn.succeeded",
] satisfies TurnEventName[];

/** A shell command for FAKE_CLAUDE_RUN that blocks the "agent" until the file exists. */
const waitFor = (file: string): string => `while [ ! -f '${file}' ]; do sleep 0.02; done`;

async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 1000; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("condition not reached");
}

function listProjectTurns(harness: Harness, user: TestUser, projectId: number) {
  return api<{ turns: Array<Record<string, unknown>> }>(
    harness,
    user.token,
    "GET",
    `/v1/projects/${projectId}/turns`,
  );
}

async function turnStatus(
  harness: Harness,
  user: TestUser,
  projectId: number,
  turnId: string,
): Promise<string> {
  const response = await api<{ turn: { status: string } }>(
    harness,
    user.token,
    "GET",
    `/v1/projects/${projectId}/turns/${turnId}`,
  );
  return response.body.turn.status;
}

/**
 * One started service per describe block, with the users Anna and Bob: the setup every block
 * shares. Fields are filled in beforeAll, so tests read them through the returned object.
 */
function serviceFixture(options?: Parameters<typeof startHarness>[0]): {
  harness: Harness;
  anna: TestUser;
  bob: TestUser;
} {
  const fixture = {} as { harness: Harness; anna: TestUser; bob: TestUser };
  beforeAll(async () => {
    fixture.harness = await startHarness(options);
    fixture.anna = await fixture.harness.createUser({
      email: "anna@example.com",
      displayName: "Anna",
    });
    fixture.bob = await fixture.harness.createUser({
      email: "bob@example.com",
      displayName: "Bob",
    });
    // The first embedded database of a test file can take most of a minute on a loaded box.
  });
  afterAll(async () => {
    await fixture.harness.close();
  });
  return fixture;
}

/** Waits until the project's newest turn runs. */
function untilNewestRunning(harness: Harness, user: TestUser, projectId: number) {
  return eventually(async () => {
    const list = await api<{ turns: Array<{ id: string; status: string }> }>(
      harness,
      user.token,
      "GET",
      `/v1/projects/${projectId}/turns`,
    );
    return list.body.turns[0]?.status === "running" ? list.body.turns : undefined;
  });
}

describe("turns with the fake claude", () => {
  const service = serviceFixture({
    parentEnv: {
      ...process.env,
      DATABASE_URL: "postgres://secret@db/never-passed",
      SOME_SECRET: "s3cr3t",
    },
  });

  it("hands the member's words to claude in their import-safe form, so no `@` loads a file", async () => {
    const record = join(service.harness.dataDir, "record-import-safe.jsonl");
    service.harness.claudeEnv.FAKE_CLAUDE_RECORD = record;
    try {
      const { project } = await newProject(service.harness, service.anna);
      const words = "@notes.md viz @/etc/passwd\n> @~/.ssh/id_rsa a\u00a0@src/ a \\@x";
      const sent = await sendMessage(service.harness, service.anna.token, project.id, words);
      expect(sent.status).toBe(202);
      const records = await readFakeClaudeRecords(record);
      expect(records.map((r) => r.stdin)).toEqual([
        "Message from the active writer:\n\n" +
          "\\@notes.md viz \\@/etc/passwd\n> \\@~/.ssh/id_rsa a\u00a0\\@src/ a \\\\\\@x",
      ]);
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_RECORD;
    }
  });

  it("streams a turn that runs here from memory: its events reach the client without waiting for their storage", async () => {
    const { project } = await newProject(service.harness, service.anna);
    const db = service.harness.service.database.db;
    // Every event after a turn's first fails to store. A stream that waited for the stored
    // events and their announcements would never see the turn start, let alone end.
    await sql`CREATE OR REPLACE FUNCTION refuse_later_events() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$ LANGUAGE plpgsql`.execute(db);
    await sql`CREATE TRIGGER refuse_later_events BEFORE INSERT ON turn_events
      FOR EACH ROW WHEN (NEW.seq > 1) EXECUTE FUNCTION refuse_later_events()`.execute(db);
    try {
      const sent = await sendMessage(service.harness, service.anna.token, project.id, "Ahoj");
      expect(sent.events.map((e) => e.event)).toEqual(ONE_TURN_EVENTS);
      expect(sent.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
      const turnId = String(sent.events[0]?.data.turnId);
      const stored = await db
        .selectFrom("turn_events")
        .select("seq")
        .where("turn_id", "=", turnId)
        .execute();
      expect(stored.map((row) => row.seq)).toEqual([1]);
    } finally {
      await sql`DROP TRIGGER refuse_later_events ON turn_events`.execute(db);
      await sql`DROP FUNCTION refuse_later_events()`.execute(db);
    }
  });

  it("spawns claude with the agreed argv, cwd, stdin and a minimal environment; resumes; costs per turn", async () => {
    const record = join(service.harness.dataDir, "record-1.jsonl");
    service.harness.claudeEnv.FAKE_CLAUDE_RECORD = record;
    try {
      const { project } = await newProject(service.harness, service.anna);
      const first = await sendMessage(service.harness, service.anna.token, project.id, "Ahoj Maro");
      expect(first.status).toBe(202);
      expect(first.headers.get("location")).toMatch(
        new RegExp(`^/v1/projects/${project.id}/turns/`),
      );
      expect(first.events.map((e) => e.event)).toEqual(ONE_TURN_EVENTS);
      expect(first.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
      const firstDone = terminalEvent(first.events).data;
      expect(firstDone).toMatchObject({
        resumed: false,
        resultText: "Done.",
        // The costs are the gateway's: the fake claude sends nothing to the provider.
        costUsd: 0,
        cumulativeCostUsd: 0,
        usage: null,
        // A key is configured: Claude answers, the costs are real.
        demoModel: false,
      });
      expect(first.events[1]?.data).toEqual({
        turnId: first.events[0]?.data.turnId,
        resume: false,
        process: "cold",
        coldReason: "new_session",
      });
      const bytesOf = (path: string) =>
        Buffer.byteLength(readFileSync(join(project.workspaceDir, path), "utf8"));
      expect(first.events[2]?.data).toEqual({
        layout: "split",
        files: [
          { path: "CLAUDE.md", changed: true, bytes: bytesOf("CLAUDE.md"), instruction: true },
          {
            path: ".talkide/active-writer.md",
            changed: true,
            bytes: bytesOf(".talkide/active-writer.md"),
            instruction: true,
          },
          {
            path: ".talkide/project.yml",
            changed: false,
            bytes: bytesOf(".talkide/project.yml"),
            instruction: false,
          },
        ],
        // Both instruction files, whole, as a resumed turn would re-send them.
        resumeReminderBytes: changedInstructionReminderBytes(
          ["CLAUDE.md", ".talkide/active-writer.md"].map((path) => ({
            absolutePath: join(project.workspaceDir, path),
            content: readFileSync(join(project.workspaceDir, path), "utf8"),
          })),
        ),
      });

      const second = await sendMessage(service.harness, service.anna.token, project.id, "Pokračuj");
      const secondDone = terminalEvent(second.events).data;
      // Nothing the process read at start changed: the second message goes to it ("warm").
      expect(second.events[1]?.data).toEqual({
        turnId: second.events[0]?.data.turnId,
        resume: true,
        process: "warm",
      });
      expect(second.events[2]?.data).toMatchObject({
        files: [
          { path: "CLAUDE.md", changed: false },
          { path: ".talkide/active-writer.md", changed: false },
          { path: ".talkide/project.yml", changed: false },
        ],
        resumeReminderBytes: 0,
      });
      expect(secondDone).toMatchObject({
        resumed: true,
        sessionId: firstDone.sessionId,
        costUsd: 0,
        cumulativeCostUsd: 0,
      });

      // A third message after the process was ended (as by its idle timeout): a cold resume.
      service.harness.service.warm.prune(() => false, "idle_timeout");
      const third = await sendMessage(service.harness, service.anna.token, project.id, "A dál?");
      const thirdDone = terminalEvent(third.events).data;
      expect(third.events[1]?.data).toMatchObject({
        resume: true,
        process: "cold",
        coldReason: "idle_timeout",
      });

      const records = await readFakeClaudeRecords(record);
      expect(records).toHaveLength(3);
      const pluginDir = join(service.harness.dataDir, "plugins", "talkide-mara");
      const common = [
        "--plugin-dir",
        pluginDir,
        "--agent",
        MARA_AGENT_NAME,
        "--exclude-dynamic-system-prompt-sections",
        // Print mode cannot ask for permission: Mara's delegates may edit workspace files.
        "--permission-mode",
        "acceptEdits",
        // Claude Code's own agents would see CLAUDE.md: only the plugin's team agents may run.
        "--disallowedTools",
        "Agent(general-purpose),Agent(claude),Agent(statusline-setup),Agent(Explore),Agent(Plan)," +
          "Edit(**/CLAUDE.md),Edit(**/CLAUDE.local.md),Edit(**/AGENTS.md),Edit(**/.claude/**),Edit(**/.mcp.json)",
      ];
      // Every message goes in as one stream-json line, warm or cold, so both send one request.
      const streamJson = ["--input-format", "stream-json"];
      expect(records[0]?.argv).toEqual([
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        ...common,
        ...streamJson,
      ]);
      // The warm turn ran in the first turn's process.
      expect(records[1]?.pid).toBe(records[0]?.pid);
      expect(records[1]?.argv).toEqual(records[0]?.argv);
      expect(records[2]?.pid).not.toBe(records[0]?.pid);
      expect(records[2]?.argv).toEqual([
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--resume",
        String(firstDone.sessionId),
        // The last message of the last successful turn: a failed turn never becomes part of it.
        "--resume-session-at",
        expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
        ...common,
        ...streamJson,
      ]);
      expect(records.map((r) => r.cwd)).toEqual([
        project.workspaceDir,
        project.workspaceDir,
        project.workspaceDir,
      ]);
      expect(records.map((r) => [r.input, r.stdin])).toEqual([
        ["stream-json", buildMemberMessage("Ahoj Maro")],
        ["stream-json", buildMemberMessage("Pokračuj")],
        ["stream-json", buildMemberMessage("A dál?")],
      ]);
      const env = records[0]?.env ?? {};
      expect(env.CLAUDE_CONFIG_DIR).toBe(join(service.harness.dataDir, "claude"));
      expect(env.TMPDIR).toBe(join(service.harness.dataDir, "claude-tmp"));
      // The provider's key stays with the service's LLM gateway: each process has a token of
      // its own (a warm turn's is its process's), and the gateway's address.
      expect(env.ANTHROPIC_API_KEY).toMatch(/^tkgw_[A-Za-z0-9_-]{43}$/);
      expect(env.ANTHROPIC_BASE_URL).toBe(service.harness.service.gateway.url);
      expect(records[1]?.env.ANTHROPIC_API_KEY).toBe(env.ANTHROPIC_API_KEY);
      expect(records[2]?.env.ANTHROPIC_API_KEY).not.toBe(env.ANTHROPIC_API_KEY);
      expect(JSON.stringify(records)).not.toContain("test-key");
      expect(env.DATABASE_URL).toBeUndefined();
      expect(env.SOME_SECRET).toBeUndefined();
      // Leftovers of a killed service are found by the id every process carries: the turn
      // that started it (a warm turn's process carries an earlier turn's id, on its record).
      expect(records.map((r) => r.env.TALKIDE_TURN_ID)).toEqual([
        firstDone.turnId,
        firstDone.turnId,
        thirdDone.turnId,
      ]);
      // The plugin directory holds exactly what the prompts package builds, outside the project.
      for (const file of buildMaraPlugin()) {
        expect(readFileSync(join(pluginDir, file.path), "utf8")).toBe(file.content);
      }
      expect(pluginDir.startsWith(project.workspaceDir)).toBe(false);

      const turns = await listProjectTurns(service.harness, service.anna, project.id);
      expect(
        turns.body.turns.map((t) => [
          t.number,
          t.status,
          t.resumed,
          t.costUsd,
          t.cumulativeCostUsd,
        ]),
      ).toEqual([
        [3, "succeeded", true, 0, 0],
        [2, "succeeded", true, 0, 0],
        [1, "succeeded", false, 0, 0],
      ]);
      expect(turns.body.turns.map((t) => [t.process, t.coldReason])).toEqual([
        ["cold", "idle_timeout"],
        ["warm", null],
        ["cold", "new_session"],
      ]);
      // Tokens and costs are what the LLM gateway saw: the fake claude sends it nothing, so
      // there are none (the real CLI's turns: gateway-usage.wire.test.ts). Its own result
      // figures are not taken.
      expect(turns.body.turns.map((t) => [t.usage, t.sessionCacheReuse, t.cacheMiss])).toEqual([
        [null, null, null],
        [null, null, null],
        [null, null, null],
      ]);
      expect(thirdDone.usage).toBeNull();
      const page = await api<{ turns: Array<{ number: number }> }>(
        service.harness,
        service.anna.token,
        "GET",
        `/v1/projects/${project.id}/turns?limit=1&before=2`,
      );
      expect(page.body.turns.map((t) => t.number)).toEqual([1]);
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_RECORD;
    }
  });

  it("records on the turn, and in its terminal event, that the CLI turned tool search off; later turns continue the session", async () => {
    // The fake CLI's `tool_search_off` turn appends to the session's transcript the reminder
    // line the pinned CLI writes when a gateway refused deferred tools (its output is as usual).
    const scenario = join(service.harness.dataDir, "scenario-tool-search-off");
    service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO_FILE = scenario;
    try {
      const { project } = await newProject(service.harness, service.anna);
      const before = await sendMessage(service.harness, service.anna.token, project.id, "Ahoj");
      writeFileSync(scenario, "tool_search_off\n");
      const fellBack = await sendMessage(service.harness, service.anna.token, project.id, "Dál");
      rmSync(scenario);
      const after = await sendMessage(service.harness, service.anna.token, project.id, "A dál");
      const terminal = [before, fellBack, after].map((sent) => terminalEvent(sent.events));
      const done = terminal.map((e) => e.data);
      expect(terminal.map((e) => [e.event, e.data.cliFallback])).toEqual([
        ["turn.succeeded", null],
        ["turn.succeeded", "tool_search_off"],
        ["turn.succeeded", null],
      ]);
      // The session continues (the decision in the README): the later turn resumes it.
      expect(done.map((d) => d.sessionId)).toEqual(Array(3).fill(done[0]?.sessionId));
      const turns = await listProjectTurns(service.harness, service.anna, project.id);
      expect(turns.body.turns.map((t) => [t.number, t.status, t.cliFallback])).toEqual([
        [3, "succeeded", null],
        [2, "succeeded", "tool_search_off"],
        [1, "succeeded", null],
      ]);
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO_FILE;
    }
  });

  it("makes the sender the active writer, whatever the request says", async () => {
    const { project } = await newProject(service.harness, service.anna);
    await addMember(service.harness, service.anna.token, project.id, {
      email: "bob@example.com",
      salutation: "Bob",
    });
    const writerFile = join(project.workspaceDir, ".talkide", "active-writer.md");
    await sendMessage(service.harness, service.anna.token, project.id, "od Anny");
    expect(readFileSync(writerFile, "utf8")).toBe("# Aktuálně píše\nAnna\n");
    const smuggled = await api(
      service.harness,
      service.bob.token,
      "POST",
      `/v1/projects/${project.id}/messages`,
      {
        text: "od Boba",
        activeMemberId: "anything",
      },
    );
    expect(smuggled.body.code).toBe("invalid_body");
    const fromBob = await sendMessage(service.harness, service.bob.token, project.id, "od Boba");
    expect(fromBob.events[2]?.data).toMatchObject({
      files: [
        { path: "CLAUDE.md", changed: false },
        { path: ".talkide/active-writer.md", changed: true },
        { path: ".talkide/project.yml", changed: false },
      ],
      resumeReminderBytes: changedInstructionReminderBytes([
        { absolutePath: writerFile, content: "# Aktuálně píše\nBob\n" },
      ]),
    });
    expect(readFileSync(writerFile, "utf8")).toBe("# Aktuálně píše\nBob\n");
  });

  it("reports is_error results as turn errors, never as Mara's words, and keeps no session from them", async () => {
    const { project } = await newProject(service.harness, service.anna);
    service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "is_error";
    let failedTurnSession: unknown;
    try {
      const turn = await sendMessage(service.harness, service.anna.token, project.id, "Hello");
      const failed = terminalEvent(turn.events).data;
      // The fake answers like the CLI after an HTTP 500 from the API.
      expect(failed).toMatchObject({ code: "model_unavailable" });
      expect(String(failed.message)).toContain("HTTP 500");
      // The runtime's text ("API Error: 500 …") is neither streamed nor stored as Mara's words.
      expect(turn.events.map((e) => e.event)).not.toContain("agent.text");
      expect(JSON.stringify(turn.events)).not.toContain("API Error");
      const init = turn.events.find((e) => e.event === "agent.init");
      failedTurnSession = init?.data.sessionId;
      expect(failed.sessionId).toBe(failedTurnSession);
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
    }
    const stored = await listProjectTurns(service.harness, service.anna, project.id);
    expect(stored.body.turns[0]).toMatchObject({
      status: "failed",
      sessionId: failedTurnSession,
      resultText: null,
      error: { code: "model_unavailable" },
    });
    expect(JSON.stringify(stored.body)).not.toContain("API Error");
    const sessions = await projectSessions(service.harness.service.database.db, project.id);
    expect(sessions).toEqual([]);
    // Decided once in the turn engine (its README, "Decided once"; the daemon's session suite
    // asserts the same through its API): a session begins with its first successful turn, so
    // the next turn starts Claude Code afresh, never resuming the failed turn's session.
    const record = join(service.harness.dataDir, "record-after-failed-first.jsonl");
    service.harness.claudeEnv.FAKE_CLAUDE_RECORD = record;
    let next;
    try {
      next = await sendMessage(service.harness, service.anna.token, project.id, "Again");
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_RECORD;
    }
    expect(next.events[1]).toMatchObject({ event: "turn.started", data: { resume: false } });
    expect(next.events.map((e) => e.event)).not.toContain("session.reset");
    const done = terminalEvent(next.events).data;
    expect(done).toMatchObject({ resumed: false });
    expect(done.sessionId).not.toBe(failedTurnSession);
    const [spawned] = await readFakeClaudeRecords(record);
    expect(spawned?.argv).not.toContain("--resume");
  });

  it("resumes after a failed turn from the last successful one, never from the failure", async () => {
    const record = join(service.harness.dataDir, "record-resume-at.jsonl");
    const { project } = await newProject(service.harness, service.anna);
    service.harness.claudeEnv.FAKE_CLAUDE_RECORD = record;
    try {
      const first = await sendMessage(service.harness, service.anna.token, project.id, "one");
      service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "is_error";
      const failed = await sendMessage(service.harness, service.anna.token, project.id, "two");
      expect(terminalEvent(failed.events).event).toBe("turn.failed");
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
      const third = await sendMessage(service.harness, service.anna.token, project.id, "three");
      expect(terminalEvent(third.events).data).toMatchObject({
        resumed: true,
        sessionId: terminalEvent(first.events).data.sessionId,
      });
      const records = await readFakeClaudeRecords(record);
      const resumeAt = records.map((r) => {
        const at = r.argv.indexOf("--resume-session-at");
        return at === -1 ? null : r.argv[at + 1];
      });
      // The failed turn and the one after it resume at the same message: the first turn's.
      expect(resumeAt[0]).toBeNull();
      expect(resumeAt[1]).toMatch(/^[0-9a-f-]{36}$/);
      expect(resumeAt[2]).toBe(resumeAt[1]);
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
      delete service.harness.claudeEnv.FAKE_CLAUDE_RECORD;
    }
  });

  it("starts a fresh session, visibly, when Mara's agent file or plugin is not what the session started with", async () => {
    const { project } = await newProject(service.harness, service.anna);
    const first = await sendMessage(service.harness, service.anna.token, project.id, "one");
    const oldSession = terminalEvent(first.events).data.sessionId;
    const { db } = service.harness.service.database;
    const pinned = await openProjectSession(db, project.id);
    expect(pinned.pin).toBe(`${maraPluginDigest().agentSha256}:${maraPluginDigest().pluginSha256}`);
    // A session started by an earlier release: its agent file had other bytes.
    await pinToEarlierRelease(db, project.id);
    const second = await sendMessage(service.harness, service.anna.token, project.id, "two");
    expect(second.events.map((e) => e.event)).toContain("session.reset");
    expect(second.events.find((e) => e.event === "session.reset")?.data).toMatchObject({
      reason: "agent_changed",
      previousSessionId: oldSession,
    });
    expect(second.events[1]?.data).toMatchObject({ resume: false });
    const done = terminalEvent(second.events).data;
    expect(done).toMatchObject({ resumed: false });
    expect(done.sessionId).not.toBe(oldSession);
    const turns = await listProjectTurns(service.harness, service.anna, project.id);
    expect(turns.body.turns.map((t) => [t.number, t.sessionReset, t.resumed])).toEqual([
      [2, "agent_changed", false],
      [1, null, false],
    ]);
    // The new session carries the current release and is resumed from now on.
    const third = await sendMessage(service.harness, service.anna.token, project.id, "three");
    expect(terminalEvent(third.events).data).toMatchObject({
      resumed: true,
      sessionId: done.sessionId,
    });
    expect(third.events.map((e) => e.event)).not.toContain("session.reset");
  });

  it("starts a new session, visibly, when claude no longer knows the stored one", async () => {
    const { project } = await newProject(service.harness, service.anna);
    const first = await sendMessage(service.harness, service.anna.token, project.id, "one");
    const oldSession = terminalEvent(first.events).data.sessionId;
    service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "unknown_session";
    let second;
    try {
      second = await sendMessage(service.harness, service.anna.token, project.id, "two");
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
    }
    expect(second.events.find((e) => e.event === "session.reset")?.data).toMatchObject({
      reason: "unknown_session",
    });
    const done = terminalEvent(second.events).data;
    expect(done).toMatchObject({ resumed: false, costUsd: 0 });
    expect(done.sessionId).not.toBe(oldSession);
    const third = await sendMessage(service.harness, service.anna.token, project.id, "three");
    expect(terminalEvent(third.events).data).toMatchObject({
      resumed: true,
      sessionId: done.sessionId,
    });
    const live = await projectSessions(service.harness.service.database.db, project.id);
    expect(live.map((s) => [s.claude_session_id, s.ended_at === null])).toEqual([
      [oldSession, false],
      [done.sessionId, true],
    ]);
  });

  it("reports a crash and a failed spawn as turn errors, with nothing half-written", async () => {
    const { project } = await newProject(service.harness, service.anna);
    service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "crash";
    try {
      const crashed = await sendMessage(service.harness, service.anna.token, project.id, "crash");
      expect(terminalEvent(crashed.events).data).toMatchObject({ code: "claude_crashed" });
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
    }
    // An argument list the kernel refuses (E2BIG): the process never starts.
    service.harness.claudeEnv.TALKIDE_TEST_HUGE = "x".repeat(300_000);
    try {
      const refused = await sendMessage(service.harness, service.anna.token, project.id, "spawn");
      expect(terminalEvent(refused.events).data).toMatchObject({ code: "claude_spawn_failed" });
    } finally {
      delete service.harness.claudeEnv.TALKIDE_TEST_HUGE;
    }
    const preview = await api<{ files: Array<{ path: string; content: string }> }>(
      service.harness,
      service.anna.token,
      "GET",
      `/v1/projects/${project.id}/context`,
    );
    for (const file of preview.body.files) {
      expect(readFileSync(join(project.workspaceDir, file.path), "utf8")).toBe(file.content);
    }
    const turns = await listProjectTurns(service.harness, service.anna, project.id);
    expect(
      turns.body.turns.map((t) => [
        t.status,
        (t.error as { code: string }).code,
        t.resultText,
        t.sessionId,
      ]),
    ).toEqual([
      ["failed", "claude_spawn_failed", null, null],
      // The CLI had announced its session before it crashed: the record keeps it.
      ["failed", "claude_crashed", null, expect.stringMatching(/^[0-9a-f-]{36}$/) as string],
    ]);
    const sessions = await projectSessions(service.harness.service.database.db, project.id);
    expect(sessions).toEqual([]);
  });

  it("reports a busy derived port with its holder and runs the turn anyway", async () => {
    // A project id whose BE port this test can hold.
    let server: Server | null = null;
    let id = 0;
    for (let attempt = 0; attempt < 20 && server === null; attempt += 1) {
      id = 500 + Math.floor(Math.random() * 400);
      const candidate = createServer();
      const listening = await new Promise<boolean>((resolve) => {
        candidate.once("error", () => {
          resolve(false);
        });
        candidate.listen(8090 + id, "127.0.0.1", () => {
          resolve(true);
        });
      });
      if (listening) server = candidate;
    }
    if (server === null) throw new Error("found no free port to hold");
    try {
      await occupyProjectIdsBelow(service.harness, id);
      const { project } = await newProject(service.harness, service.anna);
      expect(project.id).toBe(id);
      const turn = await sendMessage(service.harness, service.anna.token, project.id, "hi");
      const busy = turn.events.filter((e) => e.event === "port.busy");
      expect(busy.map((e) => [e.data.service, e.data.port])).toContainEqual(["be", 8090 + id]);
      const be = busy.find((e) => e.data.service === "be");
      expect(be?.data.holder).toMatchObject({ pid: process.pid });
      expect(String(be?.data.message)).toContain(`Port ${8090 + id}`);
      expect(terminalEvent(turn.events).event).toBe("turn.succeeded");
      // Nothing moved: the project file still names the derived ports.
      expect(readFileSync(join(project.workspaceDir, ".talkide", "project.yml"), "utf8")).toContain(
        `be: ${8090 + id}`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("replays a finished turn's events over SSE, and only the missed ones after Last-Event-ID", async () => {
    const { project } = await newProject(service.harness, service.anna);
    const posted = await api<{ turn: { id: string; status: string }; events: string }>(
      service.harness,
      service.anna.token,
      "POST",
      `/v1/projects/${project.id}/messages`,
      { text: "hi" },
    );
    expect(posted.status).toBe(202);
    expect(posted.body.turn.status).toBe("queued");
    await eventually(async () =>
      (await turnStatus(service.harness, service.anna, project.id, posted.body.turn.id)) ===
      "succeeded"
        ? true
        : undefined,
    );
    const all = await fetch(`${service.harness.url}${posted.body.events}`, {
      headers: { authorization: `Bearer ${service.anna.token}` },
    });
    expect(all.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = parseSse(await all.text());
    expect(events.at(-1)?.event).toBe("turn.succeeded");
    const rest = await fetch(`${service.harness.url}${posted.body.events}`, {
      headers: { authorization: `Bearer ${service.anna.token}`, "last-event-id": "3" },
    });
    expect(parseSse(await rest.text())).toEqual(events.filter((e) => e.id > 3));
    const stranger = await api(service.harness, service.bob.token, "GET", posted.body.events);
    expect(stranger.status).toBe(404);
    const unknown = await api(
      service.harness,
      service.anna.token,
      "GET",
      `/v1/projects/${project.id}/turns/nope/events`,
    );
    expect(unknown.body.code).toBe("turn_not_found");
  });

  it("follows a finished turn until its terminal event is stored, instead of ending without it", async () => {
    // The instance that runs a turn records it finished, then stores its terminal event: a
    // stream opened in between (on any instance) must wait for that event.
    const { project } = await newProject(service.harness, service.anna);
    const done = await sendMessage(service.harness, service.anna.token, project.id, "hi");
    const terminal = terminalEvent(done.events);
    const turnId = String(terminal.data["turnId"]);
    const { db } = service.harness.service.database;
    const stored = await db
      .selectFrom("turn_events")
      .selectAll()
      .where("turn_id", "=", turnId)
      .where("seq", "=", terminal.id)
      .executeTakeFirstOrThrow();
    await db
      .deleteFrom("turn_events")
      .where("turn_id", "=", turnId)
      .where("seq", "=", terminal.id)
      .execute();

    const stream = fetch(
      `${service.harness.url}/v1/projects/${project.id}/turns/${turnId}/events`,
      { headers: { authorization: `Bearer ${service.anna.token}` } },
    ).then(async (response) => parseSse(await response.text()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto("turn_events")
        .values({ ...stored, data: JSON.stringify(stored.data) })
        .execute();
      await announceTurnEvent(trx, turnId);
    });
    expect(await stream).toEqual(done.events);
  });

  // Last in this block: it stops the service (afterAll then finds it stopped).
  it("aborts the running turn and leaves the queued one queued when the service stops", async () => {
    const { project } = await newProject(service.harness, service.anna);
    service.harness.claudeEnv.FAKE_CLAUDE_RUN = waitFor(join(service.harness.dataDir, "never"));
    const running = sendMessage(service.harness, service.anna.token, project.id, "running");
    await untilNewestRunning(service.harness, service.anna, project.id);
    const queued = sendMessage(service.harness, service.anna.token, project.id, "queued");
    await eventually(async () => {
      const list = await api<{ turns: unknown[] }>(
        service.harness,
        service.anna.token,
        "GET",
        `/v1/projects/${project.id}/turns`,
      );
      return list.body.turns.length === 2 ? true : undefined;
    });
    const closing = service.harness.service.close();
    const [ran, waited] = await Promise.all([running, queued]);
    expect(terminalEvent(ran.events).data).toMatchObject({ code: "turn_aborted" });
    // The queued turn stays in the queue for another instance (or this one after a restart):
    // its stream ends without a terminal event, and the client reconnects with Last-Event-ID.
    expect(waited.events.map((event) => event.event)).toEqual(["turn.queued"]);
    await closing;
    // The turn failed; its run was interrupted (its host stopped), as a daemon's is.
    const { turnId } = terminalEvent(ran.events).data as { turnId: string };
    const stopped = await openDatabase({ databaseUrl: null, dataDir: service.harness.dataDir });
    try {
      expect(await runOfTurn(stopped.db, turnId)).toMatchObject({
        outcome: "interrupted",
        failure_code: "turn_aborted",
        finished_at: expect.anything() as unknown,
      });
    } finally {
      await stopped.close();
    }
  });
});

describe("the turn queue", () => {
  const service = serviceFixture({
    env: { TALKIDE_TURN_QUEUE_LIMIT: "1" },
  });

  it("runs one turn at a time, queues up to the limit, refuses one more with 409, streams live", async () => {
    const { project } = await newProject(service.harness, service.anna);
    const gate = join(service.harness.dataDir, "gate-1");
    service.harness.claudeEnv.FAKE_CLAUDE_RUN = waitFor(gate);
    service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "ok";
    try {
      const firstStream = sendMessage(service.harness, service.anna.token, project.id, "first");
      const turns = await untilNewestRunning(service.harness, service.anna, project.id);
      const queued = await api<{ turn: { id: string; number: number } }>(
        service.harness,
        service.anna.token,
        "POST",
        `/v1/projects/${project.id}/messages`,
        { text: "second" },
      );
      expect(queued.status).toBe(202);
      const refused = await api(
        service.harness,
        service.anna.token,
        "POST",
        `/v1/projects/${project.id}/messages`,
        { text: "third" },
      );
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("project_busy");
      // A live subscriber of the queued turn sees its whole life.
      const liveStream = fetch(
        `${service.harness.url}/v1/projects/${project.id}/turns/${queued.body.turn.id}/events`,
        {
          headers: { authorization: `Bearer ${service.anna.token}` },
        },
      ).then((r) => r.text());
      writeFileSync(gate, "");
      const first = await firstStream;
      expect(terminalEvent(first.events).event).toBe("turn.succeeded");
      const live = parseSse(await liveStream);
      expect(live[0]).toMatchObject({ event: "turn.queued", data: { position: 1 } });
      expect(terminalEvent(live).event).toBe("turn.succeeded");
      const all = await api<{
        turns: Array<{ id: string; startedAt: string; finishedAt: string }>;
      }>(service.harness, service.anna.token, "GET", `/v1/projects/${project.id}/turns`);
      const [later, earlier] = all.body.turns;
      expect(earlier?.id).toBe(turns[0]?.id);
      // The first turn started at its own enqueue (no claim): it was seen running above, and
      // its record says when it started, as the claimed second one's does.
      expect(Date.parse(earlier?.startedAt ?? "")).toBeLessThanOrEqual(
        Date.parse(earlier?.finishedAt ?? ""),
      );
      expect(Date.parse(later?.startedAt ?? "") >= Date.parse(earlier?.finishedAt ?? "")).toBe(
        true,
      );
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_RUN;
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
    }
  });
});

describe("turn timeout", () => {
  // The bound also holds the next, ordinary turn: on a machine running two test files at once
  // a fake claude can take over a second to start, so the bound leaves it room.
  const service = serviceFixture({ env: { TALKIDE_TURN_TIMEOUT_MS: "5000" } });

  it("ends a turn that gives no result in time as turn_timeout, and the next turn runs", async () => {
    const { project } = await newProject(service.harness, service.anna);
    service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "hang";
    service.harness.claudeEnv.FAKE_CLAUDE_IGNORE_SIGTERM = "1";
    try {
      const hung = await sendMessage(service.harness, service.anna.token, project.id, "hang");
      const failed = terminalEvent(hung.events).data;
      expect(failed).toMatchObject({ code: "turn_timeout" });
      expect(String(failed.message)).toContain("5000 ms");
    } finally {
      delete service.harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
      delete service.harness.claudeEnv.FAKE_CLAUDE_IGNORE_SIGTERM;
    }
    const next = await sendMessage(service.harness, service.anna.token, project.id, "next");
    expect(terminalEvent(next.events).event).toBe("turn.succeeded");
  });
});

describe("a claude binary that is not there", () => {
  const service = serviceFixture({ env: { TALKIDE_CLAUDE_PATH: "/nonexistent/bin/claude" } });
  it("fails the turn with claude_binary_missing, says what to do, and writes nothing half", async () => {
    const { project } = await newProject(service.harness, service.anna);
    const turn = await sendMessage(service.harness, service.anna.token, project.id, "hello");
    const failed = terminalEvent(turn.events).data;
    expect(failed.code).toBe("claude_binary_missing");
    expect(String(failed.message)).toContain("/nonexistent/bin/claude");
    const stored = await listProjectTurns(service.harness, service.anna, project.id);
    expect(stored.body.turns[0]).toMatchObject({
      status: "failed",
      error: { code: "claude_binary_missing" },
      resultText: null,
      sessionId: null,
      // Nothing reached the provider: it cost nothing.
      costUsd: 0,
    });
    expect(readFileSync(join(project.workspaceDir, "CLAUDE.md"), "utf8")).toBe(
      (
        await api(
          service.harness,
          service.anna.token,
          "GET",
          `/v1/projects/${project.id}/context/CLAUDE.md`,
        )
      ).text,
    );
  });
});
