/**
 * The context blocks around the envelope: the conversation charter and the quoted artifact
 * above it, the group context below it. Every piece of user text in them is normalized and
 * neutralized, so none of it can end a block early or pose as a line the daemon wrote.
 */
import { neutralizeInline, neutralizeMultiLine } from "../text/neutralize.ts";
import { checkCli, DEFAULT_CLI } from "../text/parameters.ts";
import { isSafeArgument } from "../text/safe-token.ts";
import { toMultiLineText, toSingleLineText } from "../text/unicode.ts";
import { ensureDelivery, type Delivery, type Quote } from "./delivery.ts";
import { buildEnvelopeTarget, quoteSingleLine } from "./envelope.ts";

export interface WakePromptOptions {
  /** The CLI the commands in the prompt name; `ticlawk` by default. */
  readonly cli?: string;
}

export function resolveCli(options: WakePromptOptions | undefined): string {
  return options?.cli === undefined ? DEFAULT_CLI : checkCli(options.cli);
}

/** Indentation of the lines inside the quote block and the group context. */
const INDENT = "  ";

/**
 * `[charter]`, the conversation's charter, `[/charter]`; `""` when there is no charter or it is
 * blank after normalization.
 */
export function buildCharterBlock(delivery: Delivery): string {
  const d = ensureDelivery(delivery);
  const charter = d.conversation_charter === null ? "" : toMultiLineText(d.conversation_charter);
  if (charter === "") return "";
  return `[charter]\n${neutralizeMultiLine(charter)}\n[/charter]`;
}

function fetchCommand(quote: Quote, cli: string): string | null {
  if (!isSafeArgument(quote.ref)) return null;
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
 *       "one-line snippet"
 *       fetch: COMMAND
 *     [/quote]
 *
 * A ref that is a safe token (and does not start with `-`) is shown bare and gets a fetch
 * command; any other ref is shown as a JSON string and the fetch line is left out. The snippet
 * line is left out when there is no snippet; `""` when the delivery quotes nothing.
 */
export function buildQuoteBlock(delivery: Delivery, options?: WakePromptOptions): string {
  const d = ensureDelivery(delivery);
  const cli = resolveCli(options);
  const quote = d.message_metadata?.quote ?? null;
  if (quote === null) return "";
  const fetch = fetchCommand(quote, cli);
  const ref = fetch === null ? quoteSingleLine(quote.ref) : quote.ref;
  const lines = ["[quote", `${INDENT}kind=${quote.kind} ref=${ref}`];
  const snippet = quote.snippet === null ? "" : toSingleLineText(quote.snippet);
  if (snippet !== "") lines.push(`${INDENT}${quoteSingleLine(snippet)}`);
  if (fetch !== null) lines.push(`${INDENT}fetch: ${fetch}`);
  lines.push("[/quote]");
  return lines.join("\n");
}

/**
 * For group messages only: the group's name and purpose (each one line) and the command that
 * lists its members. `""` for DMs and threads, and for a group with neither name nor purpose.
 */
export function buildGroupContextBlock(delivery: Delivery, options?: WakePromptOptions): string {
  const d = ensureDelivery(delivery);
  const cli = resolveCli(options);
  if (d.conversation_type !== "group") return "";
  const lines: string[] = [];
  const name = d.conversation_name === null ? "" : toSingleLineText(d.conversation_name);
  if (name !== "") lines.push(`${INDENT}name: ${neutralizeInline(name)}`);
  const purpose =
    d.conversation_description === null ? "" : toSingleLineText(d.conversation_description);
  if (purpose !== "") lines.push(`${INDENT}purpose: ${neutralizeInline(purpose)}`);
  if (lines.length === 0) return "";
  const target = buildEnvelopeTarget(d);
  return [
    "Group context:",
    ...lines,
    `To see who else is in this group, run \`${cli} group members --target "${target}"\`.`,
  ].join("\n");
}
