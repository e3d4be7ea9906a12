import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { FAKE_CLAUDE_PATH } from "@talkide/claude-cli/testing";
import {
  createTestDatabase,
  postgresSuiteCanRun,
  startPostgresServer,
  type PostgresServer,
} from "@talkide/test-postgres";
import { eventNamesOn, type Member } from "@talkide/be-api";
import { sql } from "kysely";
import { loadConfig } from "../config.ts";
import type { WriteHooks } from "../context/write-if-changed.ts";
import { issueSignInCode } from "../auth/sign-in-codes.ts";
import { createUser } from "../domain/users.ts";
import { createLogger } from "@talkide/service-kit";
import { startService, type RunningService } from "../service.ts";
import { seedMigratedCluster } from "./migrated-cluster.ts";

export interface Harness {
  readonly service: RunningService;
  readonly url: string;
  readonly dataDir: string;
  /** Every log line the service wrote, as raw JSON text. */
  readonly logs: string[];
  /** Banners the service printed (the demo token, the demo-model warning). */
  readonly printed: string[];
  /** Environment added to every spawn; tests change it between turns. */
  readonly claudeEnv: Record<string, string>;
  createUser(input: {
    email: string;
    displayName: string;
    phone?: string | null;
  }): Promise<TestUser>;
  /**
   * Stops the service and starts it again on the same data directory and port; `env` changes
   * variables for the new start (an operator raising a limit, say).
   */
  restart(env?: Readonly<Record<string, string>>): Promise<void>;
  /** The API token of a user this harness created, by their e-mail. */
  tokenOf(email: string): string;
  /** An absolute one-time sign-in link (`…/#code=tksi_…`) for a user this harness created. */
  signInLink(email: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestUser {
  readonly id: string;
  readonly token: string;
  readonly email: string;
}

export interface HarnessOptions {
  readonly databaseUrl?: string | null;
  /** Extra TALKIDE_* variables (e.g. TALKIDE_TURN_QUEUE_LIMIT). */
  readonly env?: Readonly<Record<string, string>>;
  readonly claudeEnv?: Readonly<Record<string, string>>;
  readonly writeHooks?: WriteHooks;
  readonly parentEnv?: NodeJS.ProcessEnv;
  /** The LLM gateway's clock (ms): a test crosses a cache lifetime without waiting. */
  readonly gatewayClock?: () => number;
  /**
   * Puts a database of its own in the data directory before the service starts (an older
   * release's, say): the service migrates it as it would on an upgrade.
   */
  readonly prepareDataDir?: (dataDir: string) => Promise<void>;
}

/** A service on loopback port 0 with a fresh data directory and the fake `claude`. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-test-"));
  await options.prepareDataDir?.(dataDir);
  if (!options.databaseUrl) await seedMigratedCluster(dataDir);
  const logs: string[] = [];
  const printed: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") logs.push(line);
      callback();
    },
  });
  const env: Record<string, string> = {
    TALKIDE_DATA_DIR: dataDir,
    TALKIDE_WORKSPACES_DIR: join(dataDir, "workspaces"),
    TALKIDE_PORT: "0",
    TALKIDE_CLAUDE_PATH: FAKE_CLAUDE_PATH,
    TALKIDE_DEMO: "false",
    TALKIDE_LOG_LEVEL: "debug",
    ANTHROPIC_API_KEY: "test-key",
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  };
  let config = loadConfig(env, dataDir);
  const claudeEnv: Record<string, string> = {
    FAKE_CLAUDE_STATE_DIR: join(dataDir, "fake-claude-state"),
    ...options.claudeEnv,
  };
  const start = (port: number): Promise<RunningService> =>
    startService({
      config: { ...config, port },
      logger: createLogger("talkide-be", "debug", sink),
      print: (text) => printed.push(text),
      claudeEnvOverrides: claudeEnv,
      killGraceMs: 200,
      ...(options.gatewayClock === undefined ? {} : { gatewayClock: options.gatewayClock }),
      ...(options.writeHooks === undefined ? {} : { writeHooks: options.writeHooks }),
      ...(options.parentEnv === undefined ? {} : { parentEnv: options.parentEnv }),
    });
  let service = await start(config.port);
  const tokens = new Map<string, { id: string; token: string }>();
  return {
    get service() {
      return service;
    },
    url: service.url,
    async restart(changed = {}) {
      await service.close();
      Object.assign(env, changed);
      config = loadConfig(env, dataDir);
      // The same data directory and the same address: what a person sees as the service
      // stopped and started again.
      service = await start(service.port);
    },
    dataDir,
    logs,
    printed,
    claudeEnv,
    async createUser(input) {
      const { user, token } = await createUser(service.database.db, input);
      tokens.set(input.email.toLowerCase(), { id: user.id, token });
      return { id: user.id, token, email: input.email };
    },
    tokenOf(email) {
      const found = tokens.get(email.toLowerCase());
      if (found === undefined) throw new Error(`the harness created no user ${email}`);
      return found.token;
    },
    async signInLink(email) {
      const found = tokens.get(email.toLowerCase());
      if (found === undefined) throw new Error(`the harness created no user ${email}`);
      const code = await issueSignInCode(service.database.db, found.id);
      return `${service.url}${code.path}`;
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: T;
}

/** One JSON request against the service. */
export async function api<T = Record<string, unknown>>(
  harness: { url: string },
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

export interface SseEvent {
  readonly id: number;
  readonly event: string;
  readonly data: Record<string, unknown>;
}

export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "" && !frame.startsWith(":"))
    .map((frame) => {
      const fields = new Map<string, string>();
      for (const line of frame.split("\n")) {
        const colon = line.indexOf(": ");
        if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 2));
      }
      return {
        id: Number(fields.get("id")),
        event: fields.get("event") ?? "",
        data: JSON.parse(fields.get("data") ?? "null") as Record<string, unknown>,
      };
    });
}

/** Posts a message and reads the turn's whole event stream from the same response. */
export async function sendMessage(
  harness: { url: string },
  token: string,
  projectId: number,
  text: string,
): Promise<{ status: number; events: SseEvent[]; raw: string; headers: Headers }> {
  const response = await fetch(`${harness.url}/v1/projects/${projectId}/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "text/event-stream",
    },
    body: JSON.stringify({ text }),
  });
  const raw = await response.text();
  const events = response.headers.get("content-type")?.startsWith("text/event-stream")
    ? parseSse(raw)
    : [];
  // Every test that sends a message checks that the backend names its events by the one
  // vocabulary of both apps (EVENT_NAMES of @talkide/be-api, stream `turn`).
  const outside = events.filter((e) => !(eventNamesOn("turn") as string[]).includes(e.event));
  if (outside.length > 0) {
    throw new Error(
      `events outside the vocabulary: ${JSON.stringify(outside.map((e) => e.event))}`,
    );
  }
  return { status: response.status, events, raw, headers: response.headers };
}

export function terminalEvent(events: readonly SseEvent[]): SseEvent {
  const last = events.at(-1);
  if (last === undefined || !["turn.succeeded", "turn.failed"].includes(last.event)) {
    throw new Error(`the stream did not end with a terminal event: ${JSON.stringify(events)}`);
  }
  return last;
}

export const defaultProject = {
  name: "Pekárna u Jelena",
  description: "E-shop pro malou pekárnu",
  member: { salutation: "Anna", teamBriefing: "Preferuji Pinia." },
};

let sharedServer: Promise<PostgresServer> | null = null;

/**
 * A PostgreSQL server for the real-server suites: TALKIDE_TEST_PG_URL when set, otherwise
 * a throwaway one from the machine's binaries; null (and a loud warning) when neither exists.
 */
export function postgresAvailable(): boolean {
  return postgresSuiteCanRun("The PostgreSQL server suite of @talkide/be");
}

export async function freshPostgresDatabase(): Promise<{
  url: string;
  drop(): Promise<void>;
  stopServer(): Promise<void>;
  /** Drops the database, then stops the throwaway server if this suite started one. */
  dispose(): Promise<void>;
}> {
  const adminUrl = process.env.TALKIDE_TEST_PG_URL;
  if (adminUrl) {
    const db = await createTestDatabase(adminUrl);
    return { ...db, stopServer: () => Promise.resolve(), dispose: () => db.drop() };
  }
  sharedServer ??= startPostgresServer();
  const server = await sharedServer;
  const db = await createTestDatabase(server.url);
  const stopServer = async (): Promise<void> => {
    sharedServer = null;
    await server.stop();
  };
  return {
    ...db,
    stopServer,
    dispose: async () => {
      await db.drop();
      await stopServer();
    },
  };
}

/**
 * Occupies every free project id below `id` with a member-less placeholder project, so the
 * next project created gets `id` (ids are the lowest free one).
 */
export async function occupyProjectIdsBelow(harness: Harness, id: number): Promise<void> {
  await sql`INSERT INTO projects (id, name, workspace_dir)
    SELECT g, 'placeholder', ${join(harness.dataDir, "placeholder-")} || g
    FROM generate_series(1, ${id - 1}::integer) AS g
    WHERE NOT EXISTS (SELECT 1 FROM projects WHERE projects.id = g)`.execute(
    harness.service.database.db,
  );
}

/**
 * Brings a user this harness created into a project the way people join (issue 48): the owner
 * invites (a seat), the user takes the seat with their own token. Answers like the old
 * `POST …/members` did: `201 {member}` as the owner sees the roster, or the refusal of the
 * invite (or of taking the seat) as it came.
 */
export async function addMember(
  harness: Pick<Harness, "url" | "tokenOf">,
  ownerToken: string,
  projectId: number,
  input: {
    email: string;
    salutation: string;
    teamBriefing?: string | null;
    role?: "owner" | "member";
  },
): Promise<ApiResponse<{ member: Member; code?: string; detail?: string }>> {
  const { email, ...seat } = input;
  const invited = await api<{ link: { code: string } }>(
    harness,
    ownerToken,
    "POST",
    `/v1/projects/${projectId}/invites`,
    seat,
  );
  if (invited.status !== 201)
    return invited as unknown as ApiResponse<{ member: Member; code?: string }>;
  const memberToken = harness.tokenOf(email);
  const taken = await api(harness, memberToken, "POST", "/v1/invites/accept", {
    code: invited.body.link.code,
    join: "signed-in",
  });
  if (taken.status !== 200)
    return taken as unknown as ApiResponse<{ member: Member; code?: string }>;
  const own = await api<{ members: Member[] }>(
    harness,
    memberToken,
    "GET",
    `/v1/projects/${projectId}/members`,
  );
  const joined = own.body.members.find((m) => m.you);
  if (joined === undefined) throw new Error("the joined member is not in their own roster");
  return { ...taken, status: 201, body: { member: { ...joined, you: false } } };
}
