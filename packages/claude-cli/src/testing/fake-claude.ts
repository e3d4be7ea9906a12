#!/usr/bin/env node
// A stand-in for the `claude` CLI in print mode with `--output-format stream-json --verbose`.
// It writes the same event shapes Claude Code 2.1.337 writes (system/init, assistant,
// result), keeps per-session state so `--resume` and the cumulative `total_cost_usd`
// behave like the real CLI, and records how it was called. It never talks to a model.
//
// Self-contained on purpose (no imports outside node:), so it starts fast and runs from the
// TypeScript source with Node's type stripping. Environment:
//   FAKE_CLAUDE_SCENARIO   ok (default) | is_error | unknown_session | crash | hang | slow |
//                          text_then_slow | garbage | no_result | tool_search_off
//   FAKE_CLAUDE_RECORD     append one JSON line per invocation (argv, cwd, env, stdin, …)
//   FAKE_CLAUDE_STATE_DIR  where sessions live; with it, --resume of an unknown id fails
//   FAKE_CLAUDE_RUN        a shell command run (sh -c, in the cwd) before answering
//   FAKE_CLAUDE_RESULT     the reply text (default: "Done.")
//   FAKE_CLAUDE_TURN_COST_USD  cost added per turn (default 0.0125)
//   FAKE_CLAUDE_DELAY_MS   delay of the slow scenario (default 1000)
//   FAKE_CLAUDE_EXIT_CODE  exit code of the crash scenario (default 1)
//   FAKE_CLAUDE_CRASH_SIGNAL  crash by this signal instead (e.g. SIGSEGV, SIGKILL)
//   FAKE_CLAUDE_IGNORE_SIGTERM  "1": the hang scenario ignores SIGTERM (needs SIGKILL)
//   FAKE_CLAUDE_VERSION    what --version reports (default 2.1.337, the pinned release)
//   FAKE_CLAUDE_LINGER_MS  stay alive this long after the result event (a CLI that does
//                          not exit on its own)
//   FAKE_CLAUDE_WRITE_CHUNK_BYTES  write stdout in pieces of this many bytes, pausing
//                          between them (lines and UTF-8 characters arrive split)
//   FAKE_CLAUDE_SCENARIO_FILE  when this file exists, its first line is the scenario of the
//                          next turn (read per turn: a warm process can change behaviour)
//
// With `--input-format stream-json` it reads one user message per line of standard input
// (`{"type":"user","message":{"role":"user","content":"…"}}`) and answers each as a turn of
// the same session, staying up until its input ends, as the real CLI does. Each turn is one
// record, whose `stdin` is the message's text and whose `input` is "stream-json".

import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const SCENARIOS = [
  "ok",
  "is_error",
  "unknown_session",
  "crash",
  "hang",
  "slow",
  "text_then_slow",
  "garbage",
  "no_result",
  "tool_search_off",
] as const;
type Scenario = (typeof SCENARIOS)[number];

const MODEL = "claude-sonnet-4-5-20250929";
/** The pinned release (REAL_CLAUDE_VERSION; fake-claude.test.ts keeps the two equal). */
const PINNED_VERSION = "2.1.337";
const version = (): string => process.env["FAKE_CLAUDE_VERSION"] ?? PINNED_VERSION;
const TOOLS = ["Task", "Bash", "Edit", "Glob", "Grep", "Read", "Write", "WebFetch", "WebSearch"];

interface ParsedArgs {
  print: boolean;
  outputFormat: string | null;
  verbose: boolean;
  resume: string | null;
  appendSystemPrompt: string | null;
  pluginDirs: string[];
  agent: string | null;
  version: boolean;
  inputFormat: string | null;
}

interface SessionState {
  sessionId: string;
  cwd: string;
  turns: number;
  totalCostUsd: number;
}

const VALUE_FLAGS = new Set([
  "--output-format",
  "--resume",
  "-r",
  "--resume-session-at",
  "--append-system-prompt",
  "--plugin-dir",
  "--agent",
  "--model",
  "--permission-mode",
  "--allowedTools",
  "--disallowedTools",
  "--system-prompt",
  "--input-format",
  "--max-turns",
]);

function parseArgs(argv: readonly string[]): ParsedArgs {
  const parsed: ParsedArgs = {
    print: false,
    outputFormat: null,
    verbose: false,
    resume: null,
    appendSystemPrompt: null,
    pluginDirs: [],
    agent: null,
    version: false,
    inputFormat: null,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? "";
    const value = VALUE_FLAGS.has(arg) ? (argv[i + 1] ?? null) : null;
    if (value !== null) i += 1;
    if (arg === "-p" || arg === "--print") parsed.print = true;
    else if (arg === "--verbose") parsed.verbose = true;
    else if (arg === "--version" || arg === "-v") parsed.version = true;
    else if (arg === "--output-format") parsed.outputFormat = value;
    else if (arg === "--resume" || arg === "-r") parsed.resume = value;
    else if (arg === "--append-system-prompt") parsed.appendSystemPrompt = value;
    else if (arg === "--plugin-dir" && value !== null) parsed.pluginDirs.push(value);
    else if (arg === "--agent") parsed.agent = value;
    else if (arg === "--input-format") parsed.inputFormat = value;
  }
  return parsed;
}

function rawScenario(): string {
  const file = process.env["FAKE_CLAUDE_SCENARIO_FILE"];
  if (file !== undefined && file !== "") {
    try {
      return (readFileSync(file, "utf8").split("\n")[0] ?? "").replace(/\s+$/, "");
    } catch {
      // No file: the environment decides.
    }
  }
  return process.env["FAKE_CLAUDE_SCENARIO"] ?? "ok";
}

function scenarioFromEnv(): Scenario | null {
  const raw = rawScenario();
  return SCENARIOS.find((s) => s === raw) ?? null;
}

/** Resolves once everything written so far reached the pipe (writes are ordered). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) =>
    stream.write("", () => {
      resolve();
    }),
  );
}

/** Exits only after stdout and stderr were flushed: pipes are written asynchronously. */
async function exitWith(code: number, stderrText = ""): Promise<never> {
  if (stderrText !== "") process.stderr.write(stderrText);
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

const chunkBytes = Math.floor(numberFromEnv("FAKE_CLAUDE_WRITE_CHUNK_BYTES", 0));

async function emit(event: Record<string, unknown>): Promise<void> {
  const bytes = Buffer.from(`${JSON.stringify(event)}\n`, "utf8");
  if (chunkBytes <= 0) {
    process.stdout.write(bytes);
    return;
  }
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) {
    process.stdout.write(bytes.subarray(offset, offset + chunkBytes));
    await drained(process.stdout);
    await sleep(1);
  }
}

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(value) ? value : fallback;
}

function readStdin(): string {
  try {
    return readFileSync(0, "utf8");
  } catch {
    return "";
  }
}

function sessionFile(stateDir: string, sessionId: string): string {
  return join(stateDir, "sessions", `${encodeURIComponent(sessionId)}.json`);
}

function loadSession(stateDir: string | undefined, sessionId: string): SessionState | null {
  if (stateDir === undefined) return null;
  try {
    return JSON.parse(readFileSync(sessionFile(stateDir, sessionId), "utf8")) as SessionState;
  } catch {
    return null;
  }
}

/**
 * What Claude Code (2.1.330 to 2.1.337) appends to the session's transcript when a gateway refused deferred
 * tools and it turned tool search off (its stream-json output does not change): the reminder
 * attachment line, in `<CLAUDE_CONFIG_DIR>/projects/<cwd, non-alphanumerics as ->/<id>.jsonl`.
 */
function appendToolSearchOffReminder(session: SessionState): void {
  const configDir = process.env["CLAUDE_CONFIG_DIR"];
  if (configDir === undefined || configDir === "") return;
  const dir = join(configDir, "projects", session.cwd.replace(/[^a-zA-Z0-9]/g, "-"));
  mkdirSync(dir, { recursive: true });
  const content =
    "ToolSearch is no longer available. Tools listed earlier as deferred that are still available are declared in full: call them directly.";
  const line = {
    parentUuid: null,
    isSidechain: false,
    attachment: { type: "critical_system_reminder", content },
    type: "attachment",
    uuid: randomUUID(),
    timestamp: new Date().toISOString(),
    rendered: [{ content: `<system-reminder>\n${content}\n</system-reminder>` }],
    sessionId: session.sessionId,
    version: version(),
  };
  appendFileSync(join(dir, `${session.sessionId}.jsonl`), `${JSON.stringify(line)}\n`);
}

function saveSession(stateDir: string | undefined, session: SessionState): void {
  if (stateDir === undefined) return;
  const file = sessionFile(stateDir, session.sessionId);
  mkdirSync(join(stateDir, "sessions"), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(session)}\n`);
  renameSync(temp, file);
}

function usage(
  inputTokens: number,
  outputTokens: number,
  cache: { readonly write: number; readonly read: number } = { write: 0, read: 0 },
): Record<string, unknown> {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: cache.write,
    cache_read_input_tokens: cache.read,
    output_tokens: outputTokens,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: "standard",
  };
}

/**
 * A caching API's figures for the session's nth turn, fixed so tests can assert them: the
 * first turn writes the 2,000-token prefix, every later one reads what the earlier turns wrote
 * and writes its own 200 new tokens.
 */
function sessionCache(turn: number): { readonly write: number; readonly read: number } {
  return turn <= 1 ? { write: 2000, read: 0 } : { write: 200, read: 2000 + 200 * (turn - 2) };
}

function initEvent(sessionId: string, args: ParsedArgs): Record<string, unknown> {
  return {
    type: "system",
    subtype: "init",
    cwd: process.cwd(),
    session_id: sessionId,
    tools: TOOLS,
    mcp_servers: [],
    model: MODEL,
    permissionMode: "default",
    slash_commands: ["compact", "context", "cost", "init", "review"],
    apiKeySource: process.env["ANTHROPIC_API_KEY"] === undefined ? "none" : "ANTHROPIC_API_KEY",
    claude_code_version: version(),
    output_style: "default",
    agents: ["general-purpose", "Explore", "Plan", ...(args.agent === null ? [] : [args.agent])],
    skills: [],
    plugins: args.pluginDirs.map((path) => ({ name: path.split("/").pop() ?? path, path })),
    uuid: randomUUID(),
    // New in 2.1.337 (as on its result events): whether the sandbox is on, when it was written.
    sandbox_enabled: false,
    written_at: new Date().toISOString(),
  };
}

function assistantEvent(sessionId: string, text: string, model = MODEL): Record<string, unknown> {
  return {
    type: "assistant",
    message: {
      id: `msg_fake${randomUUID().replaceAll("-", "").slice(0, 24)}`,
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text }],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(100, 1),
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

function resultEvent(fields: {
  subtype: string;
  isError: boolean;
  sessionId: string;
  totalCostUsd: number;
  result?: string;
  errors?: string[];
  numTurns: number;
  startedAt: number;
  apiErrorStatus?: number;
  /** The session's turn this result ends (1 for its first): what the prompt cache held. */
  sessionTurn?: number;
  /** Set by 2.1.337 on the result of a known start-up failure (`resume_target_not_found`). */
  startupFailureReason?: string;
}): Record<string, unknown> {
  const duration = Date.now() - fields.startedAt;
  return {
    type: "result",
    subtype: fields.subtype,
    is_error: fields.isError,
    duration_ms: duration,
    duration_api_ms: fields.numTurns === 0 ? 0 : duration,
    num_turns: fields.numTurns,
    ...(fields.result === undefined ? {} : { result: fields.result }),
    stop_reason: fields.numTurns === 0 ? null : "end_turn",
    session_id: fields.sessionId,
    total_cost_usd: fields.totalCostUsd,
    usage:
      fields.numTurns === 0 ? usage(0, 0) : usage(100, 10, sessionCache(fields.sessionTurn ?? 1)),
    modelUsage: {},
    permission_denials: [],
    ...(fields.errors === undefined ? {} : { errors: fields.errors }),
    ...(fields.apiErrorStatus === undefined
      ? {}
      : { api_error_status: fields.apiErrorStatus, terminal_reason: "api_error" }),
    ...(fields.startupFailureReason === undefined
      ? {}
      : { startup_failure_reason: fields.startupFailureReason }),
    uuid: randomUUID(),
    ...(fields.startupFailureReason === undefined ? { written_at: new Date().toISOString() } : {}),
  };
}

function record(
  args: readonly string[],
  stdin: string,
  scenario: Scenario,
  run: unknown,
  input: "text" | "stream-json",
): void {
  const file = process.env["FAKE_CLAUDE_RECORD"];
  if (file === undefined || file === "") return;
  const line = {
    pid: process.pid,
    argv: args,
    cwd: process.cwd(),
    env: { ...process.env },
    stdin,
    scenario,
    run,
    input,
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

function runBeforeAnswer(): unknown {
  const command = process.env["FAKE_CLAUDE_RUN"];
  if (command === undefined || command === "") return null;
  const ran = spawnSync("/bin/sh", ["-c", command], {
    cwd: process.cwd(),
    env: process.env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  // The command's output belongs to the "agent", not to the event stream.
  process.stderr.write(ran.stderr);
  return { command, exitCode: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const args = parseArgs(argv);
  if (args.version) {
    process.stdout.write(`${version()} (Claude Code)\n`);
    return;
  }
  if (!args.print || args.outputFormat !== "stream-json") {
    return exitWith(64, "fake claude: only -p --output-format stream-json is implemented\n");
  }
  if (!args.verbose) {
    // Claude Code's own message and exit status for this mistake.
    return exitWith(
      1,
      "Error: When using --print, --output-format=stream-json requires --verbose\n",
    );
  }
  if (args.inputFormat !== "stream-json") {
    const scenario = checkedScenario();
    if (scenario === null) return unknownScenario();
    const stdin = readStdin();
    await answer(argv, args, { text: stdin, input: "text" }, scenario, null);
    return;
  }
  // One turn per input line, all in one session, until the input ends.
  let session: SessionState | null = null;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === "") continue;
    const scenario = checkedScenario();
    if (scenario === null) return unknownScenario();
    let text: string;
    try {
      const message = JSON.parse(line) as { message?: { content?: unknown } };
      text = typeof message.message?.content === "string" ? message.message.content : "";
    } catch {
      return exitWith(1, `fake claude: not a JSON line on stdin: ${line.slice(0, 80)}\n`);
    }
    session = await answer(argv, args, { text, input: "stream-json" }, scenario, session);
  }
}

function checkedScenario(): Scenario | null {
  const scenario = scenarioFromEnv();
  if (scenario === "hang" && process.env["FAKE_CLAUDE_IGNORE_SIGTERM"] === "1") {
    // Installed before the init event, so a caller that saw init knows SIGTERM is ignored.
    process.on("SIGTERM", () => undefined);
  }
  return scenario;
}

function unknownScenario(): Promise<never> {
  return exitWith(
    64,
    `fake claude: unknown FAKE_CLAUDE_SCENARIO ${JSON.stringify(rawScenario())}; use one of ${SCENARIOS.join(", ")}\n`,
  );
}

/**
 * One turn: answers `prompt` in `current` (a warm process's session) or in the session the
 * arguments name. Resolves with the session to continue; ends the process where the real CLI
 * would (a crash, an error).
 */
async function answer(
  argv: readonly string[],
  args: ParsedArgs,
  prompt: { text: string; input: "text" | "stream-json" },
  scenario: Scenario,
  current: SessionState | null,
): Promise<SessionState> {
  const startedAt = Date.now();
  const ran = runBeforeAnswer();
  record(argv, prompt.text, scenario, ran, prompt.input);

  const stateDir = process.env["FAKE_CLAUDE_STATE_DIR"] || undefined;
  const turnCost = numberFromEnv("FAKE_CLAUDE_TURN_COST_USD", 0.0125);
  const replyText = process.env["FAKE_CLAUDE_RESULT"] ?? "Done.";

  let session: SessionState;
  if (current !== null) {
    session = current;
  } else if (args.resume !== null) {
    const known = loadSession(stateDir, args.resume);
    const unknown = scenario === "unknown_session" || (stateDir !== undefined && known === null);
    if (unknown) {
      // Claude Code 2.1.337 on an unknown --resume id: no init event, one error result
      // (with a start-up failure reason since 2.1.337, no written_at), the same sentence on
      // stderr, exit status 1.
      const message = `No conversation found with session ID: ${args.resume}`;
      await emit(
        resultEvent({
          subtype: "error_during_execution",
          isError: true,
          sessionId: args.resume,
          totalCostUsd: 0,
          errors: [message],
          numTurns: 0,
          startedAt,
          startupFailureReason: "resume_target_not_found",
        }),
      );
      return exitWith(1, `${message}\n`);
    }
    session = known ?? { sessionId: args.resume, cwd: process.cwd(), turns: 0, totalCostUsd: 0 };
  } else {
    session = { sessionId: randomUUID(), cwd: process.cwd(), turns: 0, totalCostUsd: 0 };
  }

  await emit(initEvent(session.sessionId, args));
  saveSession(stateDir, session);

  switch (scenario) {
    case "crash": {
      await emit(assistantEvent(session.sessionId, "Starting…"));
      process.stderr.write("fake claude: simulated crash\n");
      const signal = process.env["FAKE_CLAUDE_CRASH_SIGNAL"];
      if (signal !== undefined && signal !== "") {
        await Promise.all([drained(process.stdout), drained(process.stderr)]);
        process.kill(process.pid, signal);
      }
      return exitWith(numberFromEnv("FAKE_CLAUDE_EXIT_CODE", 1));
    }
    case "hang": {
      setInterval(() => undefined, 60_000);
      return new Promise<never>(() => undefined);
    }
    case "is_error": {
      // The real CLI reports an API error with subtype "success" and is_error true (which
      // is why is_error, not the subtype, decides), after a synthetic assistant message.
      const text = "API Error: 500 Internal server error (fake)";
      await emit(assistantEvent(session.sessionId, text, "<synthetic>"));
      await emit(
        resultEvent({
          subtype: "success",
          isError: true,
          sessionId: session.sessionId,
          totalCostUsd: session.totalCostUsd,
          result: text,
          numTurns: 1,
          startedAt,
          apiErrorStatus: 500,
        }),
      );
      return exitWith(1);
    }
    case "slow":
      await sleep(numberFromEnv("FAKE_CLAUDE_DELAY_MS", 1000));
      break;
    case "text_then_slow":
      // Part of an answer first, then the wait: what a turn stopped half-way has said.
      await emit(assistantEvent(session.sessionId, "Začínám…"));
      await sleep(numberFromEnv("FAKE_CLAUDE_DELAY_MS", 1000));
      break;
    case "garbage":
      process.stdout.write("this line is not JSON\n");
      break;
    case "tool_search_off":
      appendToolSearchOffReminder(session);
      break;
    default:
      break;
  }

  session.turns += 1;
  // Rounded like a currency amount so cumulative totals stay exact sums of turn costs.
  session.totalCostUsd = Math.round((session.totalCostUsd + turnCost) * 1e10) / 1e10;
  saveSession(stateDir, session);
  await emit(assistantEvent(session.sessionId, replyText));
  if (scenario === "no_result") {
    await drained(process.stdout);
    process.exit(0);
  }
  await emit(
    resultEvent({
      subtype: "success",
      isError: false,
      sessionId: session.sessionId,
      totalCostUsd: session.totalCostUsd,
      result: replyText,
      numTurns: 1,
      startedAt,
      sessionTurn: session.turns,
    }),
  );
  const lingerMs = numberFromEnv("FAKE_CLAUDE_LINGER_MS", 0);
  if (lingerMs > 0) await sleep(lingerMs);
  return session;
}

await main();
