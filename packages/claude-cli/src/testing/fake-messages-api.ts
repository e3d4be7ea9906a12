import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  estimateBlockTokens,
  PromptCache,
  PromptCacheRequestError,
  type PromptCacheLedgerEntry,
} from "./prompt-cache.ts";

/** One HTTP request the fake API received, as the test sees it. */
export interface RecordedRequest {
  /** Order of arrival, from 0. */
  readonly index: number;
  readonly method: string;
  /** Path without the query string, e.g. `/v1/messages`. */
  readonly path: string;
  /** The raw query string without `?` (`""` when there is none). */
  readonly query: string;
  /**
   * Request headers, lower-cased. Credentials (`x-api-key`, `authorization`, `cookie`,
   * `proxy-authorization`) are replaced by `"[redacted]"` so a recorded request can be
   * printed or snapshotted without leaking a key; their presence stays visible (unless the
   * fake was started with `keepCredentials`).
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The body parsed as JSON, or `null` when it was empty or not JSON. */
  readonly body: unknown;
  /** The exact body bytes as UTF-8 text (what "request bytes" are measured on). */
  readonly rawBody: string;
  readonly bodyBytes: number;
}

/** A content block the fake model answers with. */
export type FakeContentBlock =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
    };

/** What the fake model answers to one `POST /v1/messages`. */
export type FakeReply =
  | { readonly text: string }
  | {
      readonly content: readonly FakeContentBlock[];
      /** Defaults to `tool_use` when a tool_use block is present, `end_turn` otherwise. */
      readonly stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";
    }
  | {
      /** An API error response (e.g. 529 overloaded_error, 400 invalid_request_error). */
      readonly error: { readonly status: number; readonly type: string; readonly message: string };
    };

export type FakeReplyFunction = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

export interface FakeMessagesApiOptions {
  /** The reply to every message request, or a function choosing it per request. */
  readonly reply?: FakeReply | FakeReplyFunction;
  /** Model id reported in responses when the request names none. */
  readonly model?: string;
  /**
   * The prompt cache's clock in ms (default `Date.now`): a benchmark passes its own to
   * simulate people's pauses between turns without waiting.
   */
  readonly clock?: () => number;
  /** Overrides the per-model minimum cacheable prompt length (`minimumCacheableTokens`). */
  readonly minimumCacheableTokens?: number;
  /**
   * Record credential headers as they came instead of `[redacted]`: for tests that check
   * which key reached the provider (a gateway's), never for printing requests.
   */
  readonly keepCredentials?: boolean;
}

export interface FakeMessagesApi {
  /** Base URL to put in `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Every request received so far, in order of arrival (live array). */
  readonly requests: RecordedRequest[];
  /** Only the `POST /v1/messages` requests (the model calls). */
  messageRequests(): RecordedRequest[];
  /**
   * How the provider's prompt cache accounted each answered message request, in order (the
   * figures its `usage` reported, and the ideal). Refused requests are not in it.
   */
  cacheLedger(): readonly PromptCacheLedgerEntry[];
  /** Replace the reply used for the following requests. */
  setReply(reply: FakeReply | FakeReplyFunction): void;
  close(): Promise<void>;
}

export const DEFAULT_FAKE_REPLY_TEXT = "Done.";
const DEFAULT_MODEL = "claude-sonnet-4-5-20250929";
const SECRET_HEADERS = new Set(["x-api-key", "authorization", "cookie", "proxy-authorization"]);

/**
 * A loopback HTTP server that speaks the Anthropic Messages API closely enough for the real
 * Claude Code CLI to complete turns against it: `POST /v1/messages` streaming (SSE with the
 * real event sequence) and non-streaming, and `POST /v1/messages/count_tokens`. Any other
 * path gets the API's JSON error shape with 404. Every request is recorded.
 */
export async function startFakeMessagesApi(
  options: FakeMessagesApiOptions = {},
): Promise<FakeMessagesApi> {
  const requests: RecordedRequest[] = [];
  let reply: FakeReply | FakeReplyFunction = options.reply ?? { text: DEFAULT_FAKE_REPLY_TEXT };
  let messageCounter = 0;
  const cache = new PromptCache({
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.minimumCacheableTokens === undefined
      ? {}
      : { minimumCacheableTokens: options.minimumCacheableTokens }),
  });

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        sendError(res, 500, "api_error", `fake Messages API failed: ${String(error)}`);
      } else {
        res.destroy();
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const recorded: RecordedRequest = {
      index: requests.length,
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      headers: redactHeaders(req, options.keepCredentials === true),
      body: parseJson(rawBody),
      rawBody,
      bodyBytes: Buffer.byteLength(rawBody, "utf8"),
    };
    requests.push(recorded);

    if (recorded.method === "POST" && recorded.path === "/v1/messages/count_tokens") {
      sendJson(res, 200, { input_tokens: cache.countTokens(recorded.body) });
      return;
    }
    if (recorded.method === "POST" && recorded.path === "/v1/messages") {
      const chosen = typeof reply === "function" ? await reply(recorded) : reply;
      if ("error" in chosen) {
        sendError(res, chosen.error.status, chosen.error.type, chosen.error.message);
        return;
      }
      let accounted: PromptCacheLedgerEntry;
      try {
        accounted = cache.account(recorded.index, recorded.body);
      } catch (error) {
        if (!(error instanceof PromptCacheRequestError)) throw error;
        sendError(res, 400, "invalid_request_error", error.message);
        return;
      }
      messageCounter += 1;
      const message = buildMessage(chosen, recorded, options.model, messageCounter, accounted);
      if (isStreamingRequest(recorded.body)) {
        writeSse(res, message);
      } else {
        sendJson(res, 200, message);
      }
      return;
    }
    sendError(res, 404, "not_found_error", `${recorded.method} ${recorded.path} is not served`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    messageRequests: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/messages"),
    cacheLedger: () => cache.ledger(),
    setReply(next) {
      reply = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}

interface ApiMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: FakeContentBlock[];
  stop_reason: string;
  stop_sequence: null;
  usage: {
    input_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
    output_tokens: number;
    service_tier: "standard";
  };
}

function buildMessage(
  reply: Exclude<FakeReply, { error: unknown }>,
  request: RecordedRequest,
  defaultModel: string | undefined,
  counter: number,
  cache: PromptCacheLedgerEntry,
): ApiMessage {
  const content: FakeContentBlock[] =
    "text" in reply ? [{ type: "text", text: reply.text }] : [...reply.content];
  const hasToolUse = content.some((block) => block.type === "tool_use");
  const stopReason =
    ("stopReason" in reply ? reply.stopReason : undefined) ??
    (hasToolUse ? "tool_use" : "end_turn");
  const requestedModel = readModel(request.body);
  return {
    id: `msg_fake${String(counter).padStart(20, "0")}`,
    type: "message",
    role: "assistant",
    model: requestedModel ?? defaultModel ?? DEFAULT_MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: cache.uncached,
      cache_creation_input_tokens: cache.write5m + cache.write1h,
      cache_read_input_tokens: cache.read,
      cache_creation: {
        ephemeral_5m_input_tokens: cache.write5m,
        ephemeral_1h_input_tokens: cache.write1h,
      },
      output_tokens: estimateBlockTokens(JSON.stringify(content)),
      service_tier: "standard",
    },
  };
}

/**
 * The streaming event sequence of the Messages API: message_start (empty content, stop_reason
 * null), ping, then per block content_block_start / content_block_delta… / content_block_stop,
 * then message_delta (stop_reason and final output usage) and message_stop.
 */
function writeSse(res: ServerResponse, message: ApiMessage): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "request-id": `req_${message.id}`,
  });
  const send = (event: string, data: unknown): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  send("message_start", {
    type: "message_start",
    message: {
      ...message,
      content: [],
      stop_reason: null,
      usage: { ...message.usage, output_tokens: 1 },
    },
  });
  send("ping", { type: "ping" });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      for (const piece of splitIntoPieces(block.text)) {
        send("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: piece },
        });
      }
    } else {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      for (const piece of splitIntoPieces(JSON.stringify(block.input))) {
        send("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        });
      }
    }
    send("content_block_stop", { type: "content_block_stop", index });
  });
  send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    // As the API does now: the final usage repeats the input figures beside the output.
    usage: {
      input_tokens: message.usage.input_tokens,
      cache_creation_input_tokens: message.usage.cache_creation_input_tokens,
      cache_read_input_tokens: message.usage.cache_read_input_tokens,
      output_tokens: message.usage.output_tokens,
    },
  });
  send("message_stop", { type: "message_stop" });
  res.end();
}

/** Deltas arrive in several pieces in real streams; clients must concatenate them. */
function splitIntoPieces(text: string): string[] {
  if (text.length <= 1) return [text];
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function isStreamingRequest(body: unknown): boolean {
  return (
    typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true
  );
}

function readModel(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const model = (body as { model?: unknown }).model;
  return typeof model === "string" ? model : undefined;
}

function redactHeaders(req: IncomingMessage, keep: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    headers[lower] =
      SECRET_HEADERS.has(lower) && !keep
        ? "[redacted]"
        : Array.isArray(value)
          ? value.join(", ")
          : value;
  }
  return headers;
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: "error", error: { type, message } });
}
