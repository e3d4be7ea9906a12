/**
 * The context blocks around the envelope: the conversation charter and the quoted artifact
 * above it, the group context below it. Every line of user text in them is a `> ` line (see
 * `asUserLines`); the other lines are the prompt's own, and the single-line values on them
 * (a quote's kind and ref, a group name) are written bare only when they are safe tokens and
 * as JSON strings otherwise.
 */
import { checkCli, DEFAULT_CLI } from "../text/parameters.ts";
import { isSafeArgument, isSafeToken } from "../text/safe-token.ts";
import { escapeUserText, toMultiLineText, toSingleLineText } from "@talkide/text";
import { asUserLines } from "../text/user-lines.ts";
import { ensureDelivery, QUOTE_KINDS, type Delivery, type Quote } from "./delivery.ts";
import { buildEnvelopeTarget, quoteSingleLine } from "./envelope.ts";

export interface WakePromptOptions {
  /** The CLI the commands in the prompt name; `ticlawk` by default. */
  readonly cli?: string;
}

export function resolveCli(options: WakePromptOptions | undefined): string {
  return options?.cli === undefined ? DEFAULT_CLI : checkCli(options.cli);
}

/** Indentation of the prompt's own lines inside the quote block and the group context. */
const INDENT = "  ";

/** A single-line value on a line of the prompt's own: bare when a safe token, else JSON. */
function bareOrQuoted(value: string): string {
  const line = toSingleLineText(value);
  return isSafeToken(line) ? line : quoteSingleLine(line);
}

/**
 * `[charter]`, the conversation's charter as `> ` lines, `[/charter]`; `""` when there is no
 * charter or it is blank after normalization.
 */
export function buildCharterBlock(delivery: Delivery): string {
  const d = ensureDelivery(delivery);
  const charter =
    d.conversation_charter === null ? "" : escapeUserText(toMultiLineText(d.conversation_charter));
  if (charter === "") return "";
  return `[charter]\n${asUserLines(charter)}\n[/charter]`;
}

function isKnownKind(kind: string): kind is (typeof QUOTE_KINDS)[number] {
  return (QUOTE_KINDS as readonly string[]).includes(kind);
}

function fetchCommand(quote: Quote, cli: string): string | null {
  if (!isSafeArgument(quote.ref) || !isKnownKind(quote.kind)) return null;
  switch (quote.kind) {
    case "message":
      return `${cli} message read --around ${quote.ref}`;
    case "briefing":
      return `${cli} briefing get ${quote.ref}`;
    case "dashboard":
      return `${cli} dashboard get --target "#${quote.ref}"`;
  }
}

/**
 * The quoted artifact the sender is answering:
 *
 *     [quote
 *       kind=KIND ref=REF
 *     > one-line snippet
 *       fetch: COMMAND
 *     [/quote]
 *
 * The kind is bare when it is a safe token, the ref when it is a safe token that does not
 * start with `-`; otherwise each is a JSON string. The fetch line is there only for a bare ref
 * of a known kind, so no command the agent may copy carries anything but a safe token. The
 * snippet line is left out when there is no snippet; `""` when the delivery quotes nothing.
 */
export function buildQuoteBlock(delivery: Delivery, options?: WakePromptOptions): string {
  const d = ensureDelivery(delivery);
  const cli = resolveCli(options);
  const quote = d.message_metadata?.quote ?? null;
  if (quote === null) return "";
  const fetch = fetchCommand(quote, cli);
  const ref = isSafeArgument(quote.ref) ? quote.ref : quoteSingleLine(quote.ref);
  const lines = ["[quote", `${INDENT}kind=${bareOrQuoted(quote.kind)} ref=${ref}`];
  const snippet = quote.snippet === null ? "" : escapeUserText(toSingleLineText(quote.snippet));
  if (snippet !== "") lines.push(asUserLines(snippet));
  if (fetch !== null) lines.push(`${INDENT}fetch: ${fetch}`);
  lines.push("[/quote]");
  return lines.join("\n");
}

/**
 * For group messages only: the group's name (bare when a safe token, else a JSON string) and
 * purpose (one `> ` line), and the command that lists its members. `""` for DMs and threads,
 * and for a group with neither name nor purpose.
 */
export function buildGroupContextBlock(delivery: Delivery, options?: WakePromptOptions): string {
  const d = ensureDelivery(delivery);
  const cli = resolveCli(options);
  if (d.conversation_type !== "group") return "";
  const lines: string[] = [];
  const name = d.conversation_name === null ? "" : toSingleLineText(d.conversation_name);
  if (name !== "") lines.push(`${INDENT}name: ${bareOrQuoted(name)}`);
  const purpose =
    d.conversation_description === null
      ? ""
      : escapeUserText(toSingleLineText(d.conversation_description));
  if (purpose !== "") lines.push(`${INDENT}purpose:`, asUserLines(purpose));
  if (lines.length === 0) return "";
  const target = buildEnvelopeTarget(d);
  return [
    "Group context:",
    ...lines,
    `To see who else is in this group, run \`${cli} group members --target "${target}"\`.`,
  ].join("\n");
}

/**
 * One line per attachment, below the body (the seed's context line for image messages):
 * ``Attached image "NAME": `CLI attachment get ID` saves it in your working directory.``, or
 * `file` instead of `image` when the media type is not `image/…`. The name is a JSON string.
 */
export function buildAttachmentLines(delivery: Delivery, options?: WakePromptOptions): string[] {
  const d = ensureDelivery(delivery);
  const cli = resolveCli(options);
  return d.attachments.map((attachment) => {
    const kind = /^image\//iu.test(attachment.content_type ?? "") ? "image" : "file";
    return (
      `Attached ${kind} ${quoteSingleLine(attachment.name)}:` +
      ` \`${cli} attachment get ${attachment.id}\` saves it in your working directory.`
    );
  });
}
