/**
 * Why a request's prompt cache missed, told by comparing its prompt with the previous request
 * of the same session and model, in the provider's caching order (tools → system → messages).
 * Pure: the gateway stores each session's latest prompt and the outcome.
 */

/** One cacheable unit of a prompt, as the provider's cache keys it. */
export interface PromptBlock {
  readonly section: "tools" | "system" | "messages";
  /** The message's position (messages only). */
  readonly message: number | null;
  /** The message's role (messages only). */
  readonly role: string | null;
  /** The block's position in its section (tools, system) or in its message. */
  readonly block: number;
  /**
   * The block's JSON without `cache_control`; a string `system` or `content` is the text block
   * it stands for (`{"type":"text","text":…}`), as the provider's cache sees it.
   */
  readonly key: string;
}

/** A request's prompt, flattened, with the lifetime of its cache breakpoints. */
export interface PromptShape {
  readonly blocks: readonly PromptBlock[];
  /**
   * The longest lifetime of its breakpoints in ms (5 minutes, or 1 hour for `ttl: "1h"`);
   * null when it had none (nothing of it was written to the cache).
   */
  readonly ttlMs: number | null;
}

export type MissReason =
  | "new_session"
  | "ttl_expired"
  | "tools_changed"
  | "system_changed"
  | "messages_changed"
  | "prefix_kept";

/** Where a prompt first differs from the previous one. */
export interface ChangePosition {
  readonly section: "tools" | "system" | "messages";
  /** The tool, the system block, or the message, by position. */
  readonly index: number;
  /** The content block within the message (messages only; null otherwise). */
  readonly block: number | null;
  /** UTF-8 bytes into the block's text (a text block's `text`, else its JSON) where they differ. */
  readonly offset: number;
}

export interface MissExplanation {
  readonly reason: MissReason;
  /** For `*_changed`: where the prompt first differs. */
  readonly position: ChangePosition | null;
  /** Time since the session's previous request (null for a new session). */
  readonly gapMs: number | null;
  /** The previous request's longest breakpoint lifetime (null: new session, or no breakpoint). */
  readonly ttlMs: number | null;
}

/** The two texts of the first block that differs (empty where a block is missing). */
export interface ChangedText {
  readonly before: string;
  readonly after: string;
}

const FIVE_MINUTES = 5 * 60_000;
const ONE_HOUR = 60 * 60_000;

/** A request body's prompt; null when it is not a Messages API request body. */
export function promptShapeOf(body: unknown): PromptShape | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const { tools, system, messages } = body as Record<string, unknown>;
  if (!Array.isArray(messages)) return null;
  const blocks: PromptBlock[] = [];
  let ttlMs: number | null = null;
  const unit = (value: unknown): string => {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const { cache_control: cacheControl, ...rest } = value as Record<string, unknown>;
      if (cacheControl !== undefined) {
        const ttl =
          typeof cacheControl === "object" &&
          cacheControl !== null &&
          (cacheControl as { ttl?: unknown }).ttl === "1h"
            ? ONE_HOUR
            : FIVE_MINUTES;
        ttlMs = Math.max(ttlMs ?? 0, ttl);
      }
      return JSON.stringify(rest);
    }
    return typeof value === "string" ? value : JSON.stringify(value);
  };
  if (Array.isArray(tools)) {
    tools.forEach((tool, i) => {
      blocks.push({ section: "tools", message: null, role: null, block: i, key: unit(tool) });
    });
  }
  // A string is one text block to the provider's cache: the CLI sends a message's content as a
  // block list while it carries a breakpoint and as a string after (measured with 2.1.337).
  const asText = (value: string) => ({ type: "text", text: value });
  const systemBlocks =
    typeof system === "string" ? [asText(system)] : Array.isArray(system) ? system : [];
  systemBlocks.forEach((item, i) => {
    blocks.push({ section: "system", message: null, role: null, block: i, key: unit(item) });
  });
  messages.forEach((message, m) => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    const items =
      typeof content === "string"
        ? [asText(content)]
        : Array.isArray(content)
          ? content
          : [content];
    items.forEach((item, b) => {
      blocks.push({
        section: "messages",
        message: m,
        role: typeof role === "string" ? role : null,
        block: b,
        key: unit(item),
      });
    });
  });
  return { blocks, ttlMs };
}

/** The text a block's offset counts in: a text block's `text`, else its key. */
export function blockText(block: PromptBlock | undefined): string {
  if (block === undefined) return "";
  if (!block.key.startsWith("{")) return block.key;
  try {
    const parsed = JSON.parse(block.key) as { type?: unknown; text?: unknown };
    return parsed.type === "text" && typeof parsed.text === "string" ? parsed.text : block.key;
  } catch {
    return block.key;
  }
}

/** UTF-8 bytes the two texts share at their start. */
export function commonPrefixBytes(before: string, after: string): number {
  const a = Buffer.from(before, "utf8");
  const b = Buffer.from(after, "utf8");
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i += 1;
  return i;
}

interface FoundChange {
  readonly position: ChangePosition;
  readonly before: PromptBlock | undefined;
  readonly after: PromptBlock | undefined;
}

/**
 * The first place where `next` does not continue `previous` (null: `next` holds every block of
 * `previous` where it stood, and only appends). Tools and system must be equal as a whole
 * (adding a tool shifts everything after it); messages are compared in order: every earlier
 * message must be equal, the previous last message may only gain blocks at its end, and new
 * messages may follow.
 */
export function firstChange(previous: PromptShape, next: PromptShape): FoundChange | null {
  for (const section of ["tools", "system"] as const) {
    const a = previous.blocks.filter((b) => b.section === section);
    const b = next.blocks.filter((x) => x.section === section);
    for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
      if (a[i]?.key !== b[i]?.key) {
        return changeAt(section, i, null, a[i], b[i]);
      }
    }
  }
  const before = groupMessages(previous);
  const after = groupMessages(next);
  for (let m = 0; m < before.length; m += 1) {
    const a = before[m] ?? [];
    const b = after[m];
    if (b === undefined) return changeAt("messages", m, 0, a[0], undefined);
    if (a[0]?.role !== b[0]?.role) return changeAt("messages", m, 0, a[0], b[0], true);
    for (let i = 0; i < a.length; i += 1) {
      if (a[i]?.key !== b[i]?.key) return changeAt("messages", m, i, a[i], b[i]);
    }
    // A block added to an earlier message moves every later block of the prompt.
    if (m < before.length - 1 && b.length > a.length) {
      return changeAt("messages", m, a.length, undefined, b[a.length]);
    }
  }
  return null;
}

function changeAt(
  section: ChangePosition["section"],
  index: number,
  block: number | null,
  before: PromptBlock | undefined,
  after: PromptBlock | undefined,
  roleChanged = false,
): FoundChange {
  const offset = roleChanged ? 0 : commonPrefixBytes(blockText(before), blockText(after));
  return { position: { section, index, block, offset }, before, after };
}

function groupMessages(shape: PromptShape): PromptBlock[][] {
  const messages: PromptBlock[][] = [];
  for (const block of shape.blocks) {
    if (block.section !== "messages" || block.message === null) continue;
    (messages[block.message] ??= []).push(block);
  }
  // A message with no content blocks (content: []) is still a message at its position.
  for (let i = 0; i < messages.length; i += 1) messages[i] ??= [];
  return messages;
}

const REASON_OF_SECTION = {
  tools: "tools_changed",
  system: "system_changed",
  messages: "messages_changed",
} as const;

/**
 * Why the request missed (or kept) the cache:
 *
 * - `new_session`: the session (for this model) sent nothing before;
 * - `tools_changed` / `system_changed` / `messages_changed`: the prompt differs from the
 *   previous one before its end, at `position` (whatever else happened, the cache after that
 *   point cannot be read);
 * - `ttl_expired`: only appended, but more time passed than the previous request's longest
 *   breakpoint lifetime, and the response read less than the previous prompt;
 * - `prefix_kept`: only appended: nothing of the previous prompt had to be written again.
 */
export function explainCacheMiss(input: {
  readonly previous: (PromptShape & { readonly at: number; readonly promptTokens: number }) | null;
  readonly next: PromptShape;
  readonly at: number;
  /** What the response read from the cache (null: unknown, as for a refused request). */
  readonly readTokens: number | null;
}): MissExplanation & { readonly changed: ChangedText | null } {
  const { previous, next } = input;
  if (previous === null) {
    return { reason: "new_session", position: null, gapMs: null, ttlMs: null, changed: null };
  }
  const gapMs = Math.max(0, input.at - previous.at);
  const ttlMs = previous.ttlMs;
  const change = firstChange(previous, next);
  if (change !== null) {
    return {
      reason: REASON_OF_SECTION[change.position.section],
      position: change.position,
      gapMs,
      ttlMs,
      changed: { before: blockText(change.before), after: blockText(change.after) },
    };
  }
  const expired =
    ttlMs !== null &&
    gapMs > ttlMs &&
    input.readTokens !== null &&
    input.readTokens < previous.promptTokens;
  return {
    reason: expired ? "ttl_expired" : "prefix_kept",
    position: null,
    gapMs,
    ttlMs,
    changed: null,
  };
}
