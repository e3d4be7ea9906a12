// The backend's prompt-cache scenarios for `cache-cost.bench.ts`: the service as a child
// process (as a user runs it; stopped with SIGTERM or killed with SIGKILL and started again on
// the same data directory), spawning the real pinned `claude` CLI against the caching
// stand-in Messages API, whose clock the scenario moves. Each step is a member's message; the
// stand-in's ledger says what its requests read, wrote and left uncached.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  instructionReminders,
  lastUserPrompt,
  newInstructionReminders,
  startFakeMessagesApi,
  type CostStep,
  type FakeMessagesApi,
  type FakeReply,
  type PromptCacheLedgerEntry,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { buildMemberMessage } from "@talkide/prompts";
import { openDatabase } from "../db/connect.ts";
import { pinToEarlierRelease } from "../test-support/engine-sessions.ts";
import {
  addMember,
  api,
  sendMessage,
  terminalEvent,
  type SseEvent,
} from "../test-support/harness.ts";
import { startServiceChild, type ServiceChild } from "../test-support/service-child-process.ts";
import { MARA_PROMPT, REAL_CLAUDE } from "../test-support/wire-harness.ts";

/** A clock the scenario moves: the stand-in's TTLs run on it, not on the machine's time. */
class ScenarioClock {
  #now = Date.UTC(2026, 10, 28, 9, 0, 0);
  readonly now = (): number => this.#now;
  advance(ms: number): void {
    this.#now += ms;
  }
}

/** Between two messages of a brisk conversation: well inside the 5-minute TTL. */
const BRISK_GAP_MS = 20_000;
/** Words the stand-in refuses, to make a turn fail (529, and the CLI does not retry). */
const OVERLOADED = "bench-overloaded-word";

/** The model's answer to a prompt: a few sentences, as an answer to a short message is. */
function answerTo(prompt: string): string {
  const word = /\((bench\d+)\)/.exec(prompt)?.[1] ?? "zpráva";
  return `Rozumím (${word}). Podívala jsem se na to: navrhuji upravit komponentu košíku, doplnit test a ověřit výpočet ceny s DPH. Pokračuji, jakmile potvrdíte.`;
}

function refusal(message: string): FakeReply {
  return { error: { status: 400, type: "invalid_request_error", message } };
}

/** The stand-in: caching on, the scenario's clock, answers and refusals the steps arm. */
class StandIn {
  readonly clock = new ScenarioClock();
  #rejectNext = false;
  #refuseDeferredTools = false;
  readonly fake: FakeMessagesApi;
  private constructor(fake: FakeMessagesApi) {
    this.fake = fake;
  }

  static async start(): Promise<StandIn> {
    let self: StandIn | null = null;
    const fake = await startFakeMessagesApi({
      clock: () => self?.clock.now() ?? 0,
      reply: (request: RecordedRequest): FakeReply => self?.reply(request) ?? { text: "Done." },
    });
    self = new StandIn(fake);
    return self;
  }

  /** The next model request is refused with a 400, as a gateway refuses a beta it does not know. */
  rejectNextRequest(): void {
    this.#rejectNext = true;
  }

  /**
   * From now on every request offering a deferred tool (`defer_loading`, the CLI's tool
   * search) is refused with a 400, as a gateway that does not accept the field refuses it.
   */
  refuseDeferredTools(): void {
    this.#refuseDeferredTools = true;
  }

  reply(request: RecordedRequest): FakeReply {
    if (this.#rejectNext) {
      this.#rejectNext = false;
      return refusal("Unexpected value(s) for the `anthropic-beta` header");
    }
    const tools = (request.body as { tools?: Array<{ defer_loading?: unknown }> } | null)?.tools;
    const deferred = tools?.findIndex((tool) => tool.defer_loading === true) ?? -1;
    if (this.#refuseDeferredTools && deferred !== -1) {
      return refusal(`tools.${deferred}.defer_loading: Extra inputs are not permitted`);
    }
    const prompt = lastUserPrompt(request) ?? "";
    if (prompt.includes(OVERLOADED)) {
      return { error: { status: 529, type: "overloaded_error", message: "Overloaded" } };
    }
    return { text: answerTo(prompt) };
  }

  ledgerLength(): number {
    return this.fake.cacheLedger().length;
  }

  entriesSince(index: number): PromptCacheLedgerEntry[] {
    return this.fake.cacheLedger().slice(index);
  }

  request(entry: PromptCacheLedgerEntry): RecordedRequest {
    const request = this.fake.requests[entry.requestIndex];
    if (request === undefined) throw new Error(`no request ${entry.requestIndex}`);
    return request;
  }
}

/** The service's environment: the real CLI, the stand-in, no CLI retries (a refusal fails at once). */
function serviceEnv(standIn: StandIn, extra: Readonly<Record<string, string>>) {
  if (REAL_CLAUDE === null) {
    throw new Error(
      "The pinned claude binary (@anthropic-ai/claude-code) is not installed: run `pnpm install` in the repository root.",
    );
  }
  return {
    TALKIDE_CLAUDE_PATH: REAL_CLAUDE,
    ANTHROPIC_BASE_URL: standIn.fake.url,
    TALKIDE_DEMO: "false",
    TALKIDE_CLAUDE_ENV_PASSTHROUGH: ["CLAUDE_CODE_MAX_RETRIES", ...Object.keys(extra)].join(","),
    CLAUDE_CODE_MAX_RETRIES: "0",
    ...extra,
  };
}

interface Member {
  readonly email: string;
  readonly token: string;
}

/** One backend on one data directory, run as a child process that can be stopped or killed. */
class Backend {
  #child: ServiceChild | null = null;
  #sequence = 0;
  /** Per project, the answer of its session's last successful turn (new to the next request). */
  readonly #lastAnswer = new Map<number, string>();

  readonly standIn: StandIn;
  readonly dataDir: string;
  readonly cliEnv: Readonly<Record<string, string>>;

  constructor(standIn: StandIn, dataDir: string, cliEnv: Readonly<Record<string, string>> = {}) {
    this.standIn = standIn;
    this.dataDir = dataDir;
    this.cliEnv = cliEnv;
  }

  get url(): string {
    if (this.#child === null) throw new Error("the service is not running");
    return this.#child.url;
  }

  async start(): Promise<void> {
    this.#child = await startServiceChild(this.dataDir, serviceEnv(this.standIn, this.cliEnv));
  }

  /** SIGTERM: the service ends its turns' processes and closes the database. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === null) return;
    this.#child = null;
    child.process.kill("SIGTERM");
    await child.exited;
  }

  /** SIGKILL: nothing of the service runs its shutdown; its watchdog ends the kept CLI. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === null) return;
    this.#child = null;
    child.process.kill("SIGKILL");
    await child.exited;
  }

  async member(email: string, displayName: string): Promise<Member> {
    const adminToken = readFileSync(join(this.dataDir, "admin-token"), "utf8").trim();
    const created = await api<{ token: string }>(this, adminToken, "POST", "/admin/v1/users", {
      email,
      displayName,
    });
    if (created.status !== 201) throw new Error(`user not created: ${created.text}`);
    return { email, token: created.body.token };
  }

  async project(owner: Member, name: string, description: string): Promise<number> {
    const created = await api<{ project: { id: number } }>(
      this,
      owner.token,
      "POST",
      "/v1/projects",
      {
        name,
        description,
        member: { salutation: "Anna", teamBriefing: "Preferuji Pinia a Vitest." },
      },
    );
    if (created.status !== 201) throw new Error(`project not created: ${created.text}`);
    return created.body.project.id;
  }

  async addMember(owner: Member, projectId: number, member: Member, salutation: string) {
    const added = await addMember(
      { url: this.url, tokenOf: () => member.token },
      owner.token,
      projectId,
      {
        email: member.email,
        salutation,
        teamBriefing: "Vue Router 4.",
      },
    );
    if (added.status !== 201) throw new Error(`member not added: ${added.text}`);
  }

  async editBriefing(member: Member, projectId: number, teamBriefing: string): Promise<void> {
    const edited = await api(this, member.token, "PATCH", `/v1/projects/${projectId}/members/me`, {
      teamBriefing,
    });
    if (edited.status !== 200) throw new Error(`briefing not edited: ${edited.text}`);
  }

  /**
   * The stored session of the project is pinned to another release of Mara's agent file, as
   * after an upgrade: the next turn starts a new session. Done with the service stopped (the
   * embedded database has one owner).
   */
  async pinSessionToAnotherRelease(projectId: number): Promise<void> {
    const database = await openDatabase({ databaseUrl: null, dataDir: this.dataDir });
    try {
      await pinToEarlierRelease(database.db, projectId);
    } finally {
      await database.close();
    }
  }

  /**
   * A member's message, `gapMs` after the previous one on the stand-in's clock. `newTexts`
   * says what of the turn's request is genuinely new (default: the prompt, the previous
   * answer and any instruction file the CLI re-sends as changed).
   */
  async message(
    member: Member,
    projectId: number,
    label: string,
    options: {
      readonly gapMs?: number;
      readonly text?: string;
      readonly expect?: "succeeded" | "failed";
      readonly newTexts?: (request: RecordedRequest, prompt: string) => CostStep["newTexts"];
    } = {},
  ): Promise<CostStep & { readonly events: SseEvent[] }> {
    this.standIn.clock.advance(options.gapMs ?? BRISK_GAP_MS);
    this.#sequence += 1;
    const marker = `bench${this.#sequence}`;
    const text = options.text ?? `Můžeš prosím zkontrolovat košík a cenu s DPH? (${marker})`;
    const ledgerBefore = this.standIn.ledgerLength();
    const sent = await sendMessage(this, member.token, projectId, text);
    const done = terminalEvent(sent.events);
    const expected = options.expect ?? "succeeded";
    if (done.event !== `turn.${expected}`) {
      const log =
        this.#child
          ?.output()
          .split("\n")
          .filter((l) => l.includes('"level":50')) ?? [];
      throw new Error(
        `${label}: expected turn.${expected}, got ${JSON.stringify(done)}\n${log.join("\n")}`,
      );
    }
    const entries = this.standIn.entriesSince(ledgerBefore);
    const prompt = buildMemberMessage(text);
    const main =
      entries.filter((e) => lastUserPrompt(this.standIn.request(e)) === prompt).at(-1) ?? null;
    if (expected === "succeeded" && main === null) {
      throw new Error(`${label}: no answered request carried the message`);
    }
    const previous = this.#lastAnswer.get(projectId);
    const newTexts =
      main === null
        ? []
        : (options.newTexts?.(this.standIn.request(main), prompt) ?? [
            prompt,
            ...(previous === undefined ? [] : [previous]),
            ...changedFiles(this.standIn.request(main)),
          ]);
    if (expected === "succeeded") this.#lastAnswer.set(projectId, answerTo(prompt));
    return { label, entries, main, newTexts, events: sent.events };
  }

  /** The next turn of the project starts a new session: no previous answer is new to it. */
  forgetSession(projectId: number): void {
    this.#lastAnswer.delete(projectId);
  }
}

/** Instruction files a resumed request re-sends because they changed: their contents. */
function changedFiles(request: RecordedRequest): string[] {
  return newInstructionReminders(request)
    .filter((r) => r.kind === "changed")
    .flatMap((r) => r.files.map((f) => f.content));
}

/** Every instruction file of a session's first request (new for a new project). */
function initialFiles(request: RecordedRequest): string[] {
  return instructionReminders(request).flatMap((r) => r.files.map((f) => f.content));
}

export interface ScenarioResult {
  readonly steps: CostStep[];
  /** Each step's turn as the service recorded why it wrote what it wrote (its `cacheMiss`). */
  readonly why: ReadonlyArray<{ readonly reason: string; readonly phrase: string | null } | null>;
  /** Notes on what the steps showed beside the figures (a fallback's request, a reset). */
  readonly notes: string[];
}

/**
 * The backend scenario of issue 28: warm turns, a writer change, a briefing edit, a graceful
 * restart, a failed turn, a kill -9 restart, a second project, a new session after an agent
 * file change, and a gateway that refuses one request (the CLI then falls back).
 */
export async function backendScenario(root: string): Promise<ScenarioResult> {
  const standIn = await StandIn.start();
  const dataDir = join(root, "backend");
  mkdirSync(dataDir, { recursive: true });
  const backend = new Backend(standIn, dataDir);
  const steps: CostStep[] = [];
  const why: Array<{ reason: string; phrase: string | null } | null> = [];
  const notes: string[] = [];
  const record = (step: CostStep & { readonly events: SseEvent[] }): CostStep => {
    steps.push(step);
    // The gateway's reading of the turn's first request, as the turn record carries it.
    const miss = terminalEvent(step.events).data["cacheMiss"] as
      { reason: string; phrase: string | null } | null | undefined;
    why.push(miss == null ? null : { reason: miss.reason, phrase: miss.phrase });
    return step;
  };
  try {
    await backend.start();
    const anna = await backend.member("anna.cache@example.org", "Anna");
    const bob = await backend.member("bob.cache@example.org", "Bob");
    const a = await backend.project(anna, "Pekárna u Jelena", "E-shop pro malou pekárnu");
    await backend.addMember(anna, a, bob, "Bob");

    record(
      await backend.message(anna, a, "first message (new session)", { newTexts: () => "all" }),
    );
    for (let i = 1; i <= 3; i += 1) record(await backend.message(anna, a, `warm turn ${i}`));
    record(await backend.message(bob, a, "writer change (Bob writes)"));
    record(await backend.message(bob, a, "warm turn"));
    await backend.editBriefing(anna, a, "Preferuji Pinia, Vitest a Playwright pro E2E testy.");
    record(await backend.message(anna, a, "briefing edit, writer back to Anna"));

    await backend.stop();
    await backend.start();
    record(await backend.message(anna, a, "graceful restart (SIGTERM), resumed"));
    record(await backend.message(anna, a, "warm turn"));

    const failed = await backend.message(anna, a, "failed turn (the API answers 529)", {
      text: `Zkus tohle (${OVERLOADED}).`,
      expect: "failed",
    });
    record(failed);
    record(await backend.message(anna, a, "after the failed turn"));

    await backend.kill();
    await backend.start();
    record(await backend.message(anna, a, "kill -9 restart, resumed"));

    const b = await backend.project(anna, "Květinářství Lilie", "Objednávky kytic s doručením");
    record(
      await backend.message(anna, b, "second project: first message (new session)", {
        text: "Ahoj, začneme přehledem objednávek. (bench-b1)",
        newTexts: (request, prompt) => [prompt, ...initialFiles(request)],
      }),
    );
    record(await backend.message(anna, b, "second project: warm turn"));

    await backend.stop();
    await backend.pinSessionToAnotherRelease(a);
    await backend.start();
    backend.forgetSession(a);
    const reset = await backend.message(anna, a, "new session after an agent-file change", {
      // A new release's agent file is new; the project's files and the tools are not.
      newTexts: (_request, prompt) => [MARA_PROMPT, prompt],
    });
    if (!reset.events.some((e) => e.event === "session.reset")) {
      throw new Error("the agent-file change did not start a new session");
    }
    record(reset);
    record(await backend.message(anna, a, "warm turn"));

    standIn.rejectNextRequest();
    let before = standIn.fake.messageRequests().length;
    const rejected = record(
      await backend.message(anna, a, "a gateway refuses one request (400), the CLI falls back"),
    );
    notes.push(fallbackNote("One refused request", standIn, before, rejected));
    const beforeFallback = record(await backend.message(anna, a, "warm turn after the refusal"));

    standIn.refuseDeferredTools();
    before = standIn.fake.messageRequests().length;
    const refusedTools = await backend.message(
      anna,
      a,
      "a gateway refuses deferred tools from here on (400 until the CLI turns tool search off)",
    );
    const noToolSearch = record({
      ...refusedTools,
      layoutBound: toolsChanged(standIn, beforeFallback, refusedTools),
    });
    notes.push(fallbackNote("A gateway refusing deferred tools", standIn, before, noToolSearch));
    const afterFallback = record(
      await backend.message(anna, a, "warm turn 1 after tool search went off"),
    );
    notes.push(
      `Every later request of the session is heavier: the first warm turn after tool search went off sent ${afterFallback.main?.promptTokens ?? 0} prompt tokens, the warm turn before the deferred-tool refusal ${beforeFallback.main?.promptTokens ?? 0} (two exchanges apart).`,
    );
    record(await backend.message(anna, a, "warm turn 2 after tool search went off"));
    await backend.stop();
    await backend.start();
    record(await backend.message(anna, a, "graceful restart after tool search went off, resumed"));
    record(await backend.message(anna, a, "warm turn"));
    return { steps, why, notes };
  } finally {
    await backend.stop();
    await standIn.fake.close();
  }
}

/** What the CLI sent after a refusal: how many requests were refused, and what it then sent. */
/**
 * Why the CLI's own layout decides a step whose request changed the tool list: tools are the
 * first bytes of the cached prefix, so nothing after them can be read. Throws when the tools did
 * not change (the step is then the project's, and the scenario must not call it the CLI's).
 */
function toolsChanged(standIn: StandIn, before: CostStep, after: CostStep): string {
  const tools = (step: CostStep): unknown[] =>
    step.main === null
      ? []
      : ((standIn.request(step.main).body as { tools?: unknown[] } | null)?.tools ?? []);
  const [was, now] = [tools(before), tools(after)];
  if (JSON.stringify(was) === JSON.stringify(now)) {
    throw new Error(`${after.label}: the tool list did not change; the step is not the CLI's`);
  }
  const bytes = (list: unknown[]): string =>
    Buffer.byteLength(JSON.stringify(list)).toLocaleString("en-US");
  return `the CLI turned tool search off and declared its tools in full: the tool list, the first bytes of every cached prefix, went from ${was.length} tools (${bytes(was)} bytes) to ${now.length} (${bytes(now)} bytes), so no client of this CLI could read any of the earlier prefix; the system prompt and the conversation after the tools are unchanged and written again.`;
}

function fallbackNote(what: string, standIn: StandIn, before: number, step: CostStep): string {
  const sent = standIn.fake.messageRequests().slice(before);
  const answered = new Set(step.entries.map((e) => e.requestIndex));
  const refused = sent.filter((r) => !answered.has(r.index));
  const describe = (r: RecordedRequest | undefined): string => {
    const tools = ((r?.body as { tools?: unknown[] } | null)?.tools ?? []).length;
    const betas = (r?.headers["anthropic-beta"] ?? "").split(",").filter((b) => b !== "").length;
    return `${tools} tools, ${betas} betas, ${r?.bodyBytes ?? 0} body bytes`;
  };
  const accepted = step.main === null ? undefined : standIn.request(step.main);
  return `${what}: the CLI sent ${refused.length} refused request(s) (the first: ${describe(refused[0])}), then the accepted one (${describe(accepted)}).`;
}

/** Minutes between a person's messages: 1–15, from a fixed seed (mulberry32). */
export function humanGapsMs(count: number, seed = 28): number[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => Math.round((1 + random() * 14) * 60) * 1000);
}

export interface LifetimeRun {
  readonly steps: CostStep[];
  /** The clock's gap before each step (0 for the first). */
  readonly gapsMs: number[];
}

/**
 * One conversation of one project with the given gaps between messages, the CLI spawned with
 * `cliEnv` added (ENABLE_PROMPT_CACHING_1H=1 for the 1-hour TTL), on a fresh stand-in.
 */
export async function lifetimeRun(
  root: string,
  name: string,
  gapsMs: readonly number[],
  cliEnv: Readonly<Record<string, string>> = {},
): Promise<LifetimeRun> {
  const standIn = await StandIn.start();
  const dataDir = join(root, `lifetime-${name}`);
  mkdirSync(dataDir, { recursive: true });
  const backend = new Backend(standIn, dataDir, cliEnv);
  try {
    await backend.start();
    const anna = await backend.member("anna.ttl@example.org", "Anna");
    const projectId = await backend.project(anna, "Pekárna u Jelena", "E-shop pro malou pekárnu");
    const steps: CostStep[] = [];
    const all = [0, ...gapsMs];
    for (const [i, gapMs] of all.entries()) {
      steps.push(
        await backend.message(anna, projectId, `message ${i + 1}`, {
          gapMs,
          ...(i === 0 ? { newTexts: () => "all" as const } : {}),
        }),
      );
    }
    return { steps, gapsMs: all };
  } finally {
    await backend.stop();
    await standIn.fake.close();
  }
}

/** A keep-warm ping's interval: inside the 5-minute TTL with room for a late timer. */
export const PING_INTERVAL_MS = 4.5 * 60_000;
/** How long after an answer a keep-warm policy goes on pinging: the longest human gap here. */
export const PING_HORIZON_MS = 15 * 60_000;
/** One output token of a ping (`max_tokens: 1`), in input-token units (output costs 5× input). */
const PING_OUTPUT_UNITS = 5;

/**
 * A keep-warm policy on the 5-minute TTL, computed from a run whose cache never expired (the
 * same messages at brisk gaps): every turn costs what it cost there, and during each gap the
 * service re-sends the last request every `PING_INTERVAL_MS` with `max_tokens: 1`, which reads
 * its cached prefix (×0.1), pays its uncached tail and one output token; after the last
 * answer it pings until `PING_HORIZON_MS`, as it cannot know the person has gone.
 */
export function keepWarmCost(
  neverExpired: readonly CostStep[],
  gapsMs: readonly number[],
): { readonly pings: number; readonly pingBilled: number; readonly perStep: number[] } {
  let pings = 0;
  let pingBilled = 0;
  const pingCost = (step: CostStep | undefined): number => {
    const last = step?.main ?? null;
    if (last === null) return 0;
    const cached = last.breakpoints.at(-1)?.prefixTokens ?? 0;
    return 0.1 * cached + (last.promptTokens - cached) + PING_OUTPUT_UNITS;
  };
  const perStep = gapsMs.map((gapMs, i) => {
    const count = i === 0 ? 0 : Math.ceil(gapMs / PING_INTERVAL_MS) - 1;
    const cost = count * pingCost(neverExpired[i - 1]);
    pings += count;
    pingBilled += cost;
    return cost;
  });
  const tail = Math.floor(PING_HORIZON_MS / PING_INTERVAL_MS);
  pings += tail;
  pingBilled += tail * pingCost(neverExpired.at(-1));
  return { pings, pingBilled, perStep };
}
