import type { RecordedRequest } from "./fake-messages-api.ts";

/**
 * Readers for the request bodies Claude Code sends to the Messages API, so a wire test can
 * say what it checks in one line. Shapes as observed with Claude Code 2.1.330 (see
 * WIRE-NOTES.md): `system` is an array of text blocks; instruction files (CLAUDE.md and the
 * files it imports with `@path`) travel in `<system-reminder>` text blocks of user messages.
 */

export interface TextBlock {
  readonly type: string;
  readonly text: string;
  readonly cache_control?: unknown;
}

export interface WireMessage {
  readonly role: string;
  readonly blocks: readonly TextBlock[];
}

/** One instruction file as the CLI quoted it: absolute path, kind label, trimmed content. */
export interface InstructionFile {
  readonly path: string;
  /** The label in parentheses, e.g. `project instructions, checked into the codebase`. */
  readonly label: string;
  readonly content: string;
}

export interface InstructionReminder {
  /** `initial`: the first turn's full set; `changed`: a resumed turn's re-read differences. */
  readonly kind: "initial" | "changed";
  readonly files: readonly InstructionFile[];
  /** Paths the CLI reports as "no longer present" (changed reminders only). */
  readonly removed: readonly string[];
  /** The whole text block, `<system-reminder>` tags included. */
  readonly text: string;
  /** UTF-8 byte length of `text`. */
  readonly bytes: number;
}

/** The request's `system` blocks (a plain-string system prompt becomes one block). */
export function systemBlocks(request: RecordedRequest): TextBlock[] {
  const system = bodyField(request, "system");
  if (typeof system === "string") return [{ type: "text", text: system }];
  return Array.isArray(system) ? system.filter(isTextBlock) : [];
}

/** All system block texts joined by blank lines: "is X in the system prompt?". */
export function systemPromptText(request: RecordedRequest): string {
  return systemBlocks(request)
    .map((block) => block.text)
    .join("\n\n");
}

/** The request's messages with their text blocks (a string content becomes one block). */
export function wireMessages(request: RecordedRequest): WireMessage[] {
  const messages = bodyField(request, "messages");
  if (!Array.isArray(messages)) return [];
  return messages.map((raw: unknown) => {
    const message = (raw ?? {}) as { role?: unknown; content?: unknown };
    const content = message.content;
    const blocks =
      typeof content === "string"
        ? [{ type: "text", text: content }]
        : Array.isArray(content)
          ? content.filter(isTextBlock)
          : [];
    return { role: typeof message.role === "string" ? message.role : "", blocks };
  });
}

/** Text blocks of the last `user` message: what this turn added (reminders, then the prompt). */
export function lastUserTexts(request: RecordedRequest): string[] {
  const users = wireMessages(request).filter((m) => m.role === "user");
  return (users.at(-1)?.blocks ?? []).map((block) => block.text);
}

/** The prompt of the turn: the last text block of the last user message. */
export function lastUserPrompt(request: RecordedRequest): string | null {
  return lastUserTexts(request).at(-1) ?? null;
}

/** Every instruction-file reminder in the request, in message order. */
export function instructionReminders(request: RecordedRequest): InstructionReminder[] {
  const found: InstructionReminder[] = [];
  for (const message of wireMessages(request)) {
    if (message.role !== "user") continue;
    for (const block of message.blocks) {
      const reminder = parseInstructionReminder(block.text);
      if (reminder !== null) found.push(reminder);
    }
  }
  return found;
}

/** Instruction reminders inside the last user message only (what a resumed turn added). */
export function newInstructionReminders(request: RecordedRequest): InstructionReminder[] {
  return lastUserTexts(request)
    .map(parseInstructionReminder)
    .filter((reminder): reminder is InstructionReminder => reminder !== null);
}

const INITIAL_MARKER = "Codebase and user instructions are shown below.";
const CHANGED_MARKER = "Instruction files were re-read when this session started";
const SECTION_HEADER = /(?:^|\n\n)Contents of ([^\n]+?) \(([^()\n]*)\):\n\n/g;
const REMOVED_LINE = /^Instructions no longer present: (.+)$/gm;

/** Parses one text block; null when it is not an instruction-file reminder. */
export function parseInstructionReminder(text: string): InstructionReminder | null {
  const match = /^<system-reminder>\n([\s\S]*)\n<\/system-reminder>\n?$/.exec(text);
  const inner = match?.[1];
  if (inner === undefined) return null;
  const kind = inner.startsWith(INITIAL_MARKER)
    ? "initial"
    : inner.startsWith(CHANGED_MARKER)
      ? "changed"
      : null;
  if (kind === null) return null;

  const headers = [...inner.matchAll(SECTION_HEADER)];
  const removed = [...inner.matchAll(REMOVED_LINE)].map((m) => m[1] ?? "");
  const firstRemoved = inner.search(/(?:^|\n\n)Instructions no longer present: /);
  const files = headers.map((header, index) => {
    const start = header.index + header[0].length;
    const next = headers[index + 1];
    let end = next === undefined ? inner.length : next.index;
    if (firstRemoved >= start && firstRemoved < end) end = firstRemoved;
    return { path: header[1] ?? "", label: header[2] ?? "", content: inner.slice(start, end) };
  });
  return { kind, files, removed, text, bytes: Buffer.byteLength(text, "utf8") };
}

function bodyField(request: RecordedRequest, field: string): unknown {
  const body = request.body;
  return typeof body === "object" && body !== null
    ? (body as Record<string, unknown>)[field]
    : undefined;
}

function isTextBlock(value: unknown): value is TextBlock {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "text" &&
    typeof (value as { text?: unknown }).text === "string"
  );
}
