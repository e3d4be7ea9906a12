import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import {
  startFakeMessagesApi,
  type FakeMessagesApi,
  type FakeMessagesApiOptions,
} from "@talkide/claude-cli/testing";
import { migrateToLatest, openDatabase } from "@talkide/service-kit";
import { capturingLogger, makeTempDir, removeDir } from "@talkide/service-kit/testing";
import type { Kysely } from "kysely";
import { startGateway, type Gateway, type GatewayOptions } from "../gateway.ts";
import { GATEWAY_MIGRATIONS } from "../migrations.ts";

/** The provider key the tests hand the gateway: it must reach the fake and nothing else. */
export const PROVIDER_KEY = "sk-ant-canary-9f4c1e2a7b";

export interface Bench {
  readonly gateway: Gateway;
  readonly fake: FakeMessagesApi;
  readonly db: Kysely<unknown>;
  readonly logs: string[];
  /** Stops the gateway and starts another on the same database (a restart, or a second instance). */
  restart(overrides?: Partial<GatewayOptions<unknown>>): Promise<Gateway>;
  close(): Promise<void>;
}

/**
 * A gateway on a fresh database (embedded unless `databaseUrl`), migrated with the gateway's
 * folder alone, in front of the fake Messages API (which records credentials as they came).
 */
export async function startBench(
  options: {
    readonly databaseUrl?: string | null;
    readonly fake?: FakeMessagesApiOptions;
    readonly gateway?: Partial<GatewayOptions<unknown>>;
  } = {},
): Promise<Bench> {
  const dir = await makeTempDir("talkide-gateway-");
  const database = await openDatabase<unknown>({
    databaseUrl: options.databaseUrl ?? null,
    dataDir: dir,
  });
  await migrateToLatest(database.db, [GATEWAY_MIGRATIONS]);
  const fake = await startFakeMessagesApi({ keepCredentials: true, ...options.fake });
  const { logger, logs } = capturingLogger("gateway-test");
  const start = (overrides: Partial<GatewayOptions<unknown>> = {}): Promise<Gateway> =>
    startGateway({
      upstreamUrl: fake.url,
      credential: { apiKey: PROVIDER_KEY },
      db: database.db,
      logger,
      ...options.gateway,
      ...overrides,
    });
  let gateway = await start();
  return {
    get gateway() {
      return gateway;
    },
    fake,
    db: database.db,
    logs,
    async restart(overrides) {
      await gateway.close();
      gateway = await start(overrides);
      return gateway;
    },
    async close() {
      await gateway.close();
      await fake.close();
      await database.close();
      await removeDir(dir);
    },
  };
}

export interface SentResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One HTTP request with exactly these headers (no client adds its own), the body as bytes. */
export function send(
  url: string,
  options: {
    readonly method?: string;
    readonly path: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: Buffer | string;
  },
): Promise<SentResponse> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const req = httpRequest(
      `${url}${options.path}`,
      {
        method: options.method ?? "POST",
        headers: {
          ...options.headers,
          ...(body === undefined ? {} : { "content-length": String(body.length) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A Messages request body as the CLI writes it: tools, system, messages, 1-hour breakpoints. */
export function messagesBody(options: {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly text: string }>;
  readonly stream?: boolean;
  readonly system?: string;
  readonly model?: string;
}): string {
  const last = options.messages.length - 1;
  return JSON.stringify({
    model: options.model ?? "claude-opus-5-5",
    max_tokens: 1024,
    stream: options.stream ?? true,
    tools: [{ name: "Read", description: "Reads a file.", input_schema: { type: "object" } }],
    system: [
      { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.330.abc;" },
      {
        type: "text",
        text: options.system ?? "You are Mara.",
        cache_control: { type: "ephemeral", ttl: "1h" },
      },
    ],
    messages: options.messages.map((m, i) => ({
      role: m.role,
      content: [
        {
          type: "text",
          text: m.text,
          ...(i === last ? { cache_control: { type: "ephemeral", ttl: "1h" } } : {}),
        },
      ],
    })),
  });
}

/** The usage a streamed answer reported: `message_start`'s input side, `message_delta`'s output. */
export function reportedUsage(sse: Buffer): {
  input: number;
  write5m: number;
  write1h: number;
  read: number;
  output: number;
} {
  const events = sse
    .toString("utf8")
    .split("\n\n")
    .flatMap((frame) => frame.split("\n").filter((l) => l.startsWith("data: ")))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  const start = events.find((e) => e["type"] === "message_start") as {
    message: {
      usage: {
        input_tokens: number;
        cache_read_input_tokens: number;
        cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
      };
    };
  };
  const delta = events.find((e) => e["type"] === "message_delta") as {
    usage: { output_tokens: number };
  };
  const u = start.message.usage;
  return {
    input: u.input_tokens,
    write5m: u.cache_creation.ephemeral_5m_input_tokens,
    write1h: u.cache_creation.ephemeral_1h_input_tokens,
    read: u.cache_read_input_tokens,
    output: delta.usage.output_tokens,
  };
}
