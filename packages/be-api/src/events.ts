import { z } from "zod";
import type { EventNameOn } from "./event-names.ts";
import { cacheMissSchema, cacheReuseSchema, cliFallbackSchema, tokenUsageSchema } from "./usage.ts";

/**
 * The events of a turn, as clients see them (stored in turn_events, streamed over SSE), one
 * schema per name: the emitters, the store, the stream, the console and apps/be/API.md all
 * take the list from here. Each description is API.md's text for the event. The names are the
 * vocabulary's (`EVENT_NAMES`, stream `turn`): one missing here, or one more, does not compile.
 */
export const TURN_EVENTS = {
  "turn.queued": z
    .object({ turnId: z.string(), number: z.int(), position: z.int().nonnegative() })
    .describe("`position` turns run before this one"),
  "turn.started": z
    .object({
      turnId: z.string(),
      resume: z.boolean(),
      process: z.enum(["warm", "cold"]),
      coldReason: z.string().optional(),
    })
    .describe(
      'whether the project\'s session is resumed; `process` is `"warm"` (the kept process) or `"cold"` (a new one), `coldReason` why (see Turn above); sent once the context is prepared',
    ),
  "context.written": z
    .object({
      layout: z.enum(["split", "single"]),
      files: z
        .array(
          z.object({
            path: z.string(),
            changed: z.boolean(),
            bytes: z.int().nonnegative(),
            instruction: z.boolean(),
          }),
        )
        .readonly(),
      resumeReminderBytes: z.int().nonnegative(),
    })
    .describe("see Turn above"),
  "workspace.instructions": z
    .object({ files: z.array(z.string()).readonly(), message: z.string() })
    .describe(
      "instruction files inside the workspace the backend did not write (e.g. `CLAUDE.local.md`, `.claude/rules/x.md`); Claude Code loads them. Also in the turn's `workspaceInstructionFiles`",
    ),
  "port.busy": z
    .object({
      service: z.enum(["be", "fe"]),
      port: z.int(),
      holder: z.object({ pid: z.int(), command: z.string() }).nullable(),
      message: z.string(),
    })
    .describe("a derived port is in use; nothing was changed"),
  "session.reset": z
    .object({
      reason: z.enum(["agent_changed", "unknown_session"]),
      previousSessionId: z.string().nullable(),
      message: z.string(),
    })
    .describe(
      "this turn starts a new session; `reason` is `agent_changed` (Mara's agent file or plugin differs from what the session started with) or `unknown_session` (Claude Code no longer has it)",
    ),
  "agent.init": z
    .object({ sessionId: z.string().nullable(), model: z.string().nullable() })
    .describe("from the CLI's init event"),
  "agent.api_retry": z
    .object({
      attempt: z.int(),
      maxRetries: z.int().nullable(),
      delayMs: z.number().nullable(),
      status: z.int().nullable(),
      error: z.string().nullable(),
      message: z.string(),
    })
    .describe(
      "Claude Code could not reach the model API, or it answered with an error (`status`; `error` is the CLI's short kind, e.g. `overloaded`), and retries after `delayMs`; `message` says so in words",
    ),
  "agent.text": z
    .object({ text: z.string() })
    .describe("a text block of Mara's (never the runtime's own error text)"),
  "agent.tool_use": z.object({ name: z.string() }).describe("Mara used a tool"),
  "turn.succeeded": z
    .object({
      turnId: z.string(),
      sessionId: z.string(),
      resumed: z.boolean(),
      resultText: z.string(),
      costUsd: z.number().nullable(),
      cumulativeCostUsd: z.number().nullable(),
      demoModel: z.boolean(),
      usage: tokenUsageSchema.nullable().optional(),
      sessionCacheReuse: cacheReuseSchema.optional(),
      cliFallback: cliFallbackSchema.optional(),
      cacheMiss: cacheMissSchema.nullable().optional(),
    })
    .describe(
      "terminal; `demoModel` as in Turn above: the costs are not real money; `usage`, `sessionCacheReuse`, `cliFallback` and `cacheMiss` as in Turn above (absent in events stored before they existed)",
    ),
  "turn.failed": z
    .object({
      turnId: z.string(),
      code: z.string(),
      message: z.string(),
      sessionId: z.string().nullable(),
      costUsd: z.number().nullable(),
      demoModel: z.boolean(),
      usage: tokenUsageSchema.nullable().optional(),
      cumulativeCostUsd: z.number().nullable().optional(),
      cacheMiss: cacheMissSchema.nullable().optional(),
    })
    .describe(
      "terminal; `sessionId` as the CLI reported it, or null; `demoModel`, `usage`, `cumulativeCostUsd` and `cacheMiss` as in Turn above (absent in events stored before they existed); `code` `usage_limit_reached` when a spend or token limit stopped it (`message` names the limit and its setting)",
    ),
  "turn.stopped": z
    .object({
      turnId: z.string(),
      stoppedBy: z.string(),
      resultText: z.string().nullable(),
      demoModel: z.boolean(),
    })
    .describe(
      "terminal; a member (`stoppedBy`, their salutation) stopped the turn: its process was ended, `resultText` is what Mara had answered by then (null: nothing yet); the session continues from its last finished turn",
    ),
} as const satisfies Readonly<Record<EventNameOn<"turn">, z.ZodType>>;

export type TurnEventName = keyof typeof TURN_EVENTS;

/** The payload (`data`) of the event `N`. */
export type EventPayload<N extends TurnEventName> = z.infer<(typeof TURN_EVENTS)[N]>;

/** One event of a turn: `type` names it, `data` is its payload, `seq` counts from 1 per turn. */
export type TurnEvent = {
  [N in TurnEventName]: { readonly seq: number; readonly type: N; readonly data: EventPayload<N> };
}[TurnEventName];

/**
 * A stored event this release does not know: a name it does not emit, or a payload of another
 * shape (written by an older or newer release). It is kept and streamed exactly as stored.
 */
export interface UnrecognizedTurnEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
  readonly unrecognized: true;
}

/** An event as read back from the database. */
export type StoredTurnEvent = TurnEvent | UnrecognizedTurnEvent;

/** Every turn ends with exactly one of these; a stream ends after it. */
export const TERMINAL_EVENT_NAMES = [
  "turn.succeeded",
  "turn.failed",
  "turn.stopped",
] as const satisfies readonly TurnEventName[];

/** By name alone: a stored terminal event of an older shape still ends its turn's stream. */
export function isTerminalEvent(event: { readonly type: string }): boolean {
  return (TERMINAL_EVENT_NAMES as readonly string[]).includes(event.type);
}

function isTurnEventName(type: string): type is TurnEventName {
  return Object.hasOwn(TURN_EVENTS, type);
}

/**
 * A stored row, checked against the contract. The payload is kept as stored, never the
 * schema's output (which would drop or reorder fields): what the stream sends from the
 * database stays what it always sent.
 */
export function recognizeStoredEvent(row: {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
}): StoredTurnEvent {
  const { seq, type, data } = row;
  if (isTurnEventName(type) && TURN_EVENTS[type].safeParse(data).success) {
    return { seq, type, data } as TurnEvent;
  }
  return { seq, type, data, unrecognized: true };
}
