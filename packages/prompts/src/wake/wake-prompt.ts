/**
 * The wake prompt: what the agent reads as the user turn for one inbound message. Layout,
 * each part separated by one blank line and the whole ending in one `\n`:
 *
 *     New message received:               (always first: see below)
 *     [charter] ... [/charter]            (when the conversation has a charter)
 *     [quote ... [/quote]                 (when the message quotes an artifact)
 *     HEADER SUFFIXES                     (one line)
 *     > BODY                              (every body line behind `> `; none when empty)
 *     Attached image "NAME": ...          (one line per attachment)
 *     Group context: ...                  (group messages only)
 *     the reply instruction, with the exact target
 *
 * Every line of user text starts with `> ` and no other line does (see `asUserLines`), and
 * every user value is in its escaped form (`escapeUserText` of `@talkide/text`), so no `@` the
 * prompt holds stands at a word start, where the CLI would read a file, and no `<` of user
 * text can open or close a tag of the CLI's own wrapper (`<system-reminder>`, …).
 *
 * The fixed first line keeps the start of every session's first prompt the same: Claude Code
 * derives bytes before its first cache breakpoint from that prompt's characters 4, 7 and 20
 * (spec 4.0.0, `wake-prompt.md`, "Layout").
 */
import { isSafeToken } from "../text/safe-token.ts";
import { escapeUserText, toMultiLineText } from "@talkide/text";
import { asUserLines } from "../text/user-lines.ts";
import {
  buildAttachmentLines,
  buildCharterBlock,
  buildGroupContextBlock,
  buildQuoteBlock,
  resolveCli,
  type WakePromptOptions,
} from "./blocks.ts";
import { ensureDelivery, type Delivery } from "./delivery.ts";
import {
  buildEnvelopeHeader,
  buildEnvelopeTarget,
  buildReactionsSuffix,
  buildTaskSuffix,
} from "./envelope.ts";

export interface WakePromptParts {
  /** The envelope header with its task and reactions suffixes (one line). */
  readonly envelopeHeader: string;
  /** The reply target, as `buildEnvelopeTarget` gives it. */
  readonly target: string;
  /** The message body as the sender wrote it; normalized and put behind `> ` here. */
  readonly rawText: string;
  readonly groupContext: string;
  readonly charterBlock: string;
  readonly quoteBlock: string;
  /** The attachment lines, as `buildAttachmentLines` gives them; none when absent. */
  readonly attachmentLines?: readonly string[];
}

export interface InboundWakePrompt {
  /** The envelope header with suffixes, one line. */
  readonly header: string;
  /** Where the reply goes. */
  readonly target: string;
  /** The whole wake prompt, ending in `\n`. */
  readonly text: string;
  /** The delivery's text as the sender wrote it (NFC). Never place it in a prompt as is. */
  readonly rawText: string;
}

export const NEW_MESSAGE_NOTICE = "New message received:";

const TARGET_PART = '[^:"\\s]+';
const TARGET_SHAPE = new RegExp(`^(?:#|dm:@|dm:)(${TARGET_PART})(?::(${TARGET_PART}))?$`, "u");

function checkTarget(target: string): void {
  const match = TARGET_SHAPE.exec(target);
  const parts = match === null ? [] : [match[1], match[2]];
  const safe = match !== null && parts.every((part) => part === undefined || isSafeToken(part));
  if (!safe) throw new TypeError("target must be a reply target built by buildEnvelopeTarget");
}

function checkHeader(header: string): void {
  if (!header.startsWith("[target=") || /[\n\r\u0085\u2028\u2029]/u.test(header)) {
    throw new TypeError("envelopeHeader must be one line built by buildEnvelopeHeader");
  }
}

const ATTACHMENT_LINE =
  /^Attached (?:image|file) "(?:[^"\\\n]|\\.)*": `[A-Za-z0-9._-]+ attachment get [\p{L}\p{Nd}._][\p{L}\p{Nd}._-]*` saves it in your working directory\.$/u;

function checkAttachmentLine(line: string): string {
  if (!ATTACHMENT_LINE.test(line)) {
    throw new TypeError("attachmentLines must come from buildAttachmentLines");
  }
  return line;
}

function replyInstruction(cli: string, target: string): string {
  return [
    `Reply with \`${cli} message send --target "${target}"\` (the body goes on standard input,` +
      " best as a quoted heredoc), or act on the message as it needs. Use exactly this target" +
      " when you reply.",
    "",
    "Finish every step the message calls for before you stop: research, changes, tests. A" +
      " progress update does not end the work; stop only when nothing is left to do. When new" +
      " messages arrive, the daemon wakes you again by itself.",
  ].join("\n");
}

/**
 * Lays out the parts of a wake prompt. The body is normalized and put behind `> ` here, so
 * this step is safe on its own; the other parts must come from the builders of this package.
 */
export function buildWakePromptText(parts: WakePromptParts, options?: WakePromptOptions): string {
  const cli = resolveCli(options);
  checkTarget(parts.target);
  checkHeader(parts.envelopeHeader);
  const body = escapeUserText(toMultiLineText(parts.rawText));
  const envelope = [
    parts.envelopeHeader,
    ...(body === "" ? [] : [asUserLines(body)]),
    ...(parts.attachmentLines ?? []).map(checkAttachmentLine),
  ].join("\n");
  const sections = [
    NEW_MESSAGE_NOTICE,
    parts.charterBlock,
    parts.quoteBlock,
    envelope,
    parts.groupContext,
    replyInstruction(cli, parts.target),
  ].filter((section) => section !== "");
  return `${sections.join("\n\n")}\n`;
}

/**
 * The wake prompt for one delivery: a pure function of the delivery (and the CLI name). The
 * delivery is checked first (see `parseDelivery`); an invalid one throws `DeliveryError`.
 */
export function buildInboundWakePrompt(
  delivery: Delivery,
  options?: WakePromptOptions,
): InboundWakePrompt {
  const d = ensureDelivery(delivery);
  const header = buildEnvelopeHeader(d) + buildTaskSuffix(d) + buildReactionsSuffix(d);
  const target = buildEnvelopeTarget(d);
  const text = buildWakePromptText(
    {
      envelopeHeader: header,
      target,
      rawText: d.text,
      groupContext: buildGroupContextBlock(d, options),
      charterBlock: buildCharterBlock(d),
      quoteBlock: buildQuoteBlock(d, options),
      attachmentLines: buildAttachmentLines(d, options),
    },
    options,
  );
  return { header, target, text, rawText: d.text };
}
