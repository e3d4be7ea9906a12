import type { AddressInfo } from "node:net";
import { pipeline } from "node:stream";
import replyFrom from "@fastify/reply-from";
import type { Logger } from "@talkide/service-kit";
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from "fastify";
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { Kysely } from "kysely";
import {
  explainCacheMiss,
  promptShapeOf,
  type ChangedText,
  type MissExplanation,
  type PromptShape,
} from "./cache-miss.ts";
import { CredentialRegistry, presentedToken, type GatewayCredential } from "./credentials.ts";
import { DEFAULT_LIMITS, reachedLimit, type LimitReached, type LimitSettings } from "./limits.ts";
import { DEFAULT_PRICES, priceOf, requestCostUsd, roundUsd, type PriceTable } from "./prices.ts";
import {
  GatewayStore,
  type Attribution,
  type ProjectTotals,
  type RequestRecord,
  type StoredPrompt,
  type TurnUsage,
} from "./store.ts";
import { promptTokens, type RequestUsage } from "./usage.ts";
import { UsageTap, type TappedResponse } from "./usage-tap.ts";

/** The provider's credential, which only the gateway holds. */
export type ProviderCredential = { readonly apiKey: string } | { readonly authToken: string };

/**
 * A host's name for why a request missed the cache, in its own terms ("the active writer
 * changed"), or null to leave it unnamed. `changed` holds the two texts of the first block
 * that differs, for a `*_changed` reason.
 */
export type MissNamer = (miss: MissExplanation, changed: ChangedText | null) => string | null;

export interface GatewayOptions<DB> {
  /** The provider's base URL (`https://api.anthropic.com`, or a proxy's, or a local stand-in). */
  readonly upstreamUrl: string;
  /** Sent upstream as `x-api-key` (`apiKey`) or `authorization: Bearer` (`authToken`). */
  readonly credential: ProviderCredential;
  /** The host's database, migrated with `GATEWAY_MIGRATIONS` beside its own. */
  readonly db: Kysely<DB>;
  readonly prices?: PriceTable;
  readonly limits?: LimitSettings;
  readonly logger: Logger;
  readonly nameMiss?: MissNamer;
  /**
   * What the host calls a project in its limit messages ("This agent's daily spending limit
   * …"); default "project".
   */
  readonly projectNoun?: string;
  /** ms since the epoch; tests pass their own to cross a TTL or a UTC day without waiting. */
  readonly clock?: () => number;
  /** A session's stored prompt is forgotten after this long without requests (default 30 days). */
  readonly promptRetentionMs?: number;
  /** An HTTP proxy to reach the provider through (`http://proxy:3128`); none by default. */
  readonly proxyUrl?: string | null;
}

export interface UsageScope {
  readonly projectKey: string;
  readonly userKey: string | null;
}

export interface Gateway {
  /** `http://127.0.0.1:<port>`: every process's `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  readonly prices: PriceTable;
  readonly limits: LimitSettings;
  /** A credential for one new process of the project. Revoke it when the process exits. */
  issue(scope: { readonly projectKey: string }): GatewayCredential;
  /** The first limit the scope has reached (per UTC day and month, across instances), or null. */
  checkLimits(scope: UsageScope): Promise<LimitReached | null>;
  /** The turn's requests summed (after every request of it seen here is stored), or null. */
  turnUsage(turnId: string): Promise<TurnUsage | null>;
  /** The limit the gateway refused one of the turn's requests with, or null. */
  refusalOf(turnId: string): Promise<LimitReached | null>;
  /** The project's spend and tokens in the UTC day and month of `now` (default: the clock's). */
  projectTotals(projectKey: string, now?: number): Promise<ProjectTotals>;
  /** A user's spend and tokens in the UTC day and month of `now`, over every project. */
  userTotals(userKey: string, now?: number): Promise<ProjectTotals>;
  /** Stops taking requests; waits for what is being recorded. */
  close(): Promise<void>;
}

/**
 * The refusal of a request over a limit. Measured with the pinned CLI (2.1.330), which sent one
 * request for 429 with `x-should-retry: false` and for 402/403, six for 400 (it retries a 400
 * without its betas and deferred tools) and ten over two minutes for a plain 429; 403 makes it
 * say "Failed to authenticate". So: 429 `rate_limit_error` with `x-should-retry: false`.
 */
export const REFUSAL_STATUS = 429;

/** The largest request body forwarded (the Messages API takes up to 32 MB). */
const BODY_LIMIT = 64 * 1024 * 1024;
const DAY = 24 * 60 * 60_000;

function apiError(type: string, message: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

declare module "fastify" {
  interface FastifyRequest {
    gatewayAttribution: Attribution | null;
  }
}

/**
 * Starts the gateway on 127.0.0.1 (a free port). Every request of a process is checked against
 * its token, forwarded to `upstreamUrl` (path and query as received, body byte for byte, every
 * header but the credential unchanged) with the provider's credential, and its response streamed
 * back unchanged while a copy is read for the usage. One row per request is stored; a scope
 * over a limit is refused before anything leaves.
 */
export async function startGateway<DB>(options: GatewayOptions<DB>): Promise<Gateway> {
  const { logger } = options;
  const clock = options.clock ?? Date.now;
  const prices = options.prices ?? DEFAULT_PRICES;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const store = new GatewayStore(options.db as unknown as Kysely<unknown>);
  const registry = new CredentialRegistry();
  const upstream = new URL(options.upstreamUrl);
  const prefix = upstream.pathname.replace(/\/+$/, "");
  /** Recordings in flight, by turn: `turnUsage` waits for a turn's before it sums. */
  const pending = new Map<string, Set<Promise<void>>>();
  const inFlight = new Set<Promise<void>>();

  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, return503OnClosing: true });
  app.decorateRequest("gatewayAttribution", null);
  // Every body is kept as the bytes that came: forwarded as they are, parsed only as a copy.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => {
    done(null, body);
  });
  await app.register(replyFrom, {
    base: upstream.origin,
    disableRequestLogging: true,
    undici: {
      // A streamed answer may pause for minutes (long thinking): the CLI keeps its own timeouts.
      headersTimeout: 0,
      bodyTimeout: 0,
      // reply-from turns certificate checks off unless told otherwise (its getUndiciOptions
      // sets `tls.rejectUnauthorized: false`; `connect` comes after it): the provider's key
      // must only ever reach a provider that proves who it is. (Through a proxy, undici's
      // ProxyAgent checks the provider's certificate by default.)
      connect: { rejectUnauthorized: true },
      ...(options.proxyUrl == null ? {} : { proxy: options.proxyUrl }),
    },
  });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status =
      typeof error.statusCode === "number" && error.statusCode >= 400 ? error.statusCode : 500;
    logger.warn(
      { err: { code: error.code, message: error.message }, status },
      "gateway refused a request",
    );
    void reply
      .code(status)
      .type("application/json")
      .send(
        apiError(
          status >= 500 ? "api_error" : "invalid_request_error",
          `The gateway refused the request (${error.code}).`,
        ),
      );
  });
  // The token decides before anything else is read: an unknown or revoked one never reaches
  // the provider, and its body is not even read.
  app.addHook("onRequest", async (request, reply) => {
    const attribution = registry.attributionOf(presentedToken(request.headers));
    if (attribution === null) {
      await reply
        .code(401)
        .type("application/json")
        .send(apiError("authentication_error", "invalid x-api-key"));
      return reply;
    }
    request.gatewayAttribution = attribution;
    return undefined;
  });

  const credentialHeaders = (headers: Record<string, unknown>): Record<string, unknown> => {
    const rest = { ...headers };
    delete rest["x-api-key"];
    delete rest["authorization"];
    return "apiKey" in options.credential
      ? { ...rest, "x-api-key": options.credential.apiKey }
      : { ...rest, authorization: `Bearer ${options.credential.authToken}` };
  };

  const track = (turnId: string | null, work: Promise<void>): void => {
    inFlight.add(work);
    let set: Set<Promise<void>> | undefined;
    if (turnId !== null) {
      set = pending.get(turnId) ?? new Set();
      pending.set(turnId, set);
      set.add(work);
    }
    void work.finally(() => {
      inFlight.delete(work);
      if (set !== undefined && turnId !== null) {
        set.delete(work);
        if (set.size === 0) pending.delete(turnId);
      }
    });
  };

  const checkLimits = async (scope: UsageScope): Promise<LimitReached | null> => {
    const used = await store.usedAmounts(scope, clock());
    return reachedLimit(limits, used, options.projectNoun);
  };

  const nameMiss = (miss: MissExplanation, changed: ChangedText | null): string | null => {
    if (options.nameMiss === undefined || miss.reason === "prefix_kept") return null;
    try {
      return options.nameMiss(miss, changed);
    } catch (error) {
      logger.warn({ err: error }, "the host's cache-miss namer failed");
      return null;
    }
  };

  app.all("/*", async (request: FastifyRequest, reply: FastifyReply) => {
    const attribution = request.gatewayAttribution;
    if (attribution === null) return reply;
    const at = clock();
    const [pathOnly = "/"] = request.url.split("?");
    const raw = Buffer.isBuffer(request.body) ? request.body : null;
    const header = request.headers["x-claude-code-session-id"];
    const claudeSessionId = typeof header === "string" && header !== "" ? header : null;
    const analysed =
      request.method === "POST" && pathOnly === "/v1/messages" && raw !== null
        ? analyse(raw)
        : null;
    const base = {
      ...attribution,
      at,
      claudeSessionId,
      method: request.method,
      path: pathOnly,
      model: analysed?.model ?? null,
    };

    const reached = await checkLimits(attribution);
    if (reached !== null) {
      const refusal = store.insertRequest({
        ...base,
        status: REFUSAL_STATUS,
        refusal: reached,
        usage: null,
        costUsd: 0,
        miss: null,
        missPhrase: null,
      });
      track(
        attribution.turnId,
        refusal.catch((error: unknown) => {
          logger.error({ err: error }, "could not record a refused request");
        }),
      );
      await refusal.catch(() => undefined);
      logger.info(
        {
          turnId: attribution.turnId,
          scope: reached.scope,
          period: reached.period,
          measure: reached.measure,
        },
        "refused a request over a usage limit",
      );
      return reply
        .code(REFUSAL_STATUS)
        .header("x-should-retry", "false")
        .type("application/json")
        .send(apiError("rate_limit_error", reached.message));
    }

    // The session's previous prompt is read while the request travels.
    const previous =
      analysed !== null && claudeSessionId !== null && analysed.model !== null
        ? store.previousPrompt(claudeSessionId, analysed.model).catch((error: unknown) => {
            logger.warn({ err: error }, "could not read the session's previous prompt");
            return null;
          })
        : Promise.resolve(null);
    // Recorded once the answer is over, whole or cut: the client's connection closing is the
    // one event every outcome ends with (streamed to the end, aborted, the provider unreachable).
    const upstreamAnswer: { status: number; tap: UsageTap | null } = { status: 502, tap: null };
    const answered = new Promise<{ status: number; tapped: TappedResponse | null }>((resolve) => {
      reply.raw.once("close", () => {
        const { status, tap } = upstreamAnswer;
        if (tap === null) resolve({ status: reply.raw.headersSent ? status : 499, tapped: null });
        else
          void tap.result.then((tapped) => {
            resolve({ status, tapped });
          });
      });
    });
    track(
      attribution.turnId,
      answered
        .then(async ({ status, tapped }) => {
          await record(base, status, tapped, analysed, await previous);
        })
        .catch((error: unknown) => {
          logger.error(
            { err: error, turnId: attribution.turnId },
            "could not record a request's usage",
          );
        }),
    );

    const source = `${prefix}${request.url}`;
    return reply.from(source, {
      ...(raw === null
        ? {}
        : {
            body: raw,
            contentType: request.headers["content-type"] ?? "application/octet-stream",
          }),
      rewriteRequestHeaders: (_request, headers) => credentialHeaders(headers) as typeof headers,
      onResponse: (_request, out, res) => {
        const response = res as unknown as {
          readonly statusCode: number;
          readonly headers: IncomingHttpHeaders;
          readonly stream: Readable;
        };
        const tap = new UsageTap(response.headers);
        upstreamAnswer.status = response.statusCode;
        upstreamAnswer.tap = tap;
        pipeline(response.stream, tap, () => undefined);
        void out.send(tap);
      },
      onError: (out) => {
        void out
          .code(502)
          .type("application/json")
          .send(apiError("api_error", "The gateway could not reach the model provider."));
      },
    });
  });

  const record = async (
    base: Omit<RequestRecord, "status" | "refusal" | "usage" | "costUsd" | "miss" | "missPhrase">,
    status: number,
    tapped: TappedResponse | null,
    analysed: Analysed | null,
    previous: StoredPrompt | null,
  ): Promise<void> => {
    const usage: RequestUsage | null = tapped?.usage ?? null;
    const model = tapped?.model ?? base.model;
    const costUsd = usage === null ? 0 : roundUsd(requestCostUsd(priceOf(prices, model), usage));
    let miss: MissExplanation | null = null;
    let missPhrase: string | null = null;
    if (analysed !== null && status >= 200 && status < 300) {
      const explained = explainCacheMiss({
        previous: base.claudeSessionId === null ? null : previous,
        next: analysed.shape,
        at: base.at,
        readTokens: usage?.cacheReadTokens ?? null,
      });
      const { changed, ...explanation } = explained;
      miss = explanation;
      missPhrase = nameMiss(explanation, changed);
    }
    await store.insertRequest({
      ...base,
      model,
      status,
      refusal: null,
      usage,
      costUsd,
      miss,
      missPhrase,
    });
    if (
      analysed !== null &&
      base.claudeSessionId !== null &&
      analysed.model !== null &&
      status >= 200 &&
      status < 300
    ) {
      await store.savePrompt(base.claudeSessionId, analysed.model, {
        ...analysed.shape,
        at: base.at,
        promptTokens: usage === null ? 0 : promptTokens(usage),
      });
    }
    logger.debug(
      {
        turnId: base.turnId,
        path: base.path,
        status,
        model,
        costUsd,
        miss: miss?.reason,
      },
      "gateway request",
    );
  };

  await store
    .pruneSessionPrompts(clock() - (options.promptRetentionMs ?? 30 * DAY))
    .catch((error: unknown) => {
      logger.warn({ err: error }, "could not forget old session prompts");
    });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    prices,
    limits,
    issue: ({ projectKey }) => registry.issue(projectKey, url),
    checkLimits,
    async turnUsage(turnId) {
      await Promise.all([...(pending.get(turnId) ?? [])]);
      return store.turnUsage(turnId);
    },
    async refusalOf(turnId) {
      await Promise.all([...(pending.get(turnId) ?? [])]);
      return store.refusalOf(turnId);
    },
    projectTotals: (projectKey, now = clock()) => store.totals("project", projectKey, now),
    userTotals: (userKey, now = clock()) => store.totals("user", userKey, now),
    async close() {
      await app.close();
      await Promise.all([...inFlight]);
    },
  };
}

interface Analysed {
  readonly model: string | null;
  readonly shape: PromptShape;
}

/** A parsed copy of a Messages request body: its model and prompt. Null when it is not one. */
function analyse(raw: Buffer): Analysed | null {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    return null;
  }
  const shape = promptShapeOf(body);
  if (shape === null) return null;
  const model = (body as { model?: unknown }).model;
  return { model: typeof model === "string" ? model : null, shape };
}
