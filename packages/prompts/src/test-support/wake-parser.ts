/**
 * A reader of wake prompts that trusts only the prompt's own lines: the lines that do not
 * start with `>`. It walks the layout of spec/wake-prompt.md and throws on any own line it
 * does not expect, so a user text that managed to produce an own line would fail the parse.
 * Lines starting with `>` are collected as user text of the part they stand in.
 */

export interface ParsedEnvelope {
  readonly target: string;
  readonly msg: string;
  readonly seq: string | null;
  readonly time: string;
  readonly type: string;
  readonly reason: string | null;
  readonly sender: string;
  readonly task: string | null;
  readonly reactions: string | null;
}

export interface ParsedWakePrompt {
  /** The lines not starting with `>`, in order. */
  readonly ownLines: readonly string[];
  readonly charter: readonly string[] | null;
  readonly quote: {
    readonly head: string;
    readonly snippet: readonly string[];
    readonly fetch: string | null;
  } | null;
  readonly envelope: ParsedEnvelope;
  readonly body: readonly string[];
  readonly attachments: readonly string[];
  readonly group: {
    readonly name: string | null;
    readonly purpose: readonly string[] | null;
    readonly membersTarget: string;
  } | null;
  readonly replyTarget: string;
}

const ENVELOPE =
  /^\[target=(\S+) msg=(\S+)(?: seq=(\d+))? time=(\S+) type=(human|agent|system)(?: reason=([a-z_]+))?\] \\@(\S+):( \[task #\d+ status=[a-z_]+(?: assignee=(?:agent|user):\S+)?(?: title="(?:[^"\\]|\\.)*")?\])?( \[reactions: [^[\];]+(?:; [^[\];]+)*\])?$/u;
const REPLY =
  /^Reply with `ticlawk message send --target "([^"\s]+)"` \(the body goes on standard input, best as a quoted heredoc\), or act on the message as it needs\. Use exactly this target when you reply\.$/u;
const FINISH =
  "Finish every step the message calls for before you stop: research, changes, tests. A progress update does not end the work; stop only when nothing is left to do. When new messages arrive, the daemon wakes you again by itself.";
const MEMBERS =
  /^To see who else is in this group, run `ticlawk group members --target "([^"\s]+)"`\.$/u;
const FETCH =
  /^ {2}fetch: ticlawk (?:message read --around [^\s"]+|briefing get [^\s"]+|dashboard get --target "#[^\s"]+")$/u;
const QUOTE_HEAD =
  /^ {2}kind=(?:[\p{L}\p{Nd}._-]+|"(?:[^"\\]|\\.)*") ref=(?:[\p{L}\p{Nd}._-]+|"(?:[^"\\]|\\.)*")$/u;
const ATTACHMENT =
  /^Attached (?:image|file) "(?:[^"\\]|\\.)*": `ticlawk attachment get [\p{L}\p{Nd}._][\p{L}\p{Nd}._-]*` saves it in your working directory\.$/u;
const GROUP_NAME = /^ {2}name: ([\p{L}\p{Nd}._-]+|"(?:[^"\\]|\\.)*")$/u;

class Lines {
  private at = 0;
  private readonly lines: readonly string[];
  constructor(lines: readonly string[]) {
    this.lines = lines;
  }
  peek(): string | undefined {
    return this.lines[this.at];
  }
  take(): string {
    const line = this.lines[this.at];
    if (line === undefined) throw new Error("the prompt ends too early");
    this.at += 1;
    return line;
  }
  expect(line: string): void {
    const got = this.take();
    if (got !== line)
      throw new Error(`expected ${JSON.stringify(line)}, got ${JSON.stringify(got)}`);
  }
  /** The `> ` lines from here on, without their prefix. */
  userLines(): string[] {
    const out: string[] = [];
    for (let line = this.peek(); line?.startsWith(">") === true; line = this.peek()) {
      this.take();
      if (line !== ">" && !line.startsWith("> "))
        throw new Error(`a user line must start with "> ": ${JSON.stringify(line)}`);
      out.push(line.slice(2));
    }
    return out;
  }
  done(): boolean {
    return this.at === this.lines.length;
  }
}

function match(pattern: RegExp, line: string): RegExpExecArray {
  const found = pattern.exec(line);
  if (found === null) throw new Error(`unexpected own line ${JSON.stringify(line)}`);
  return found;
}

export function parseWakePrompt(text: string): ParsedWakePrompt {
  if (!text.endsWith("\n") || text.endsWith("\n\n")) throw new Error("must end in one \\n");
  const all = text.slice(0, -1).split("\n");
  const ownLines = all.filter((line) => !line.startsWith(">"));
  const lines = new Lines(all);
  lines.expect("New message received:");
  lines.expect("");
  let charter: string[] | null = null;
  if (lines.peek() === "[charter]") {
    lines.take();
    charter = lines.userLines();
    lines.expect("[/charter]");
    lines.expect("");
  }
  let quote: ParsedWakePrompt["quote"] = null;
  if (lines.peek() === "[quote") {
    lines.take();
    const head = match(QUOTE_HEAD, lines.take())[0];
    const snippet = lines.userLines();
    const fetch =
      lines.peek()?.startsWith("  fetch:") === true ? match(FETCH, lines.take())[0] : null;
    lines.expect("[/quote]");
    lines.expect("");
    quote = { head, snippet, fetch };
  }
  const e = match(ENVELOPE, lines.take());
  const envelope: ParsedEnvelope = {
    target: e[1] ?? "",
    msg: e[2] ?? "",
    seq: e[3] ?? null,
    time: e[4] ?? "",
    type: e[5] ?? "",
    reason: e[6] ?? null,
    sender: e[7] ?? "",
    task: e[8]?.slice(1) ?? null,
    reactions: e[9]?.slice(1) ?? null,
  };
  const body = lines.userLines();
  const attachments: string[] = [];
  while (lines.peek()?.startsWith("Attached ") === true)
    attachments.push(match(ATTACHMENT, lines.take())[0]);
  lines.expect("");
  let group: ParsedWakePrompt["group"] = null;
  if (lines.peek() === "Group context:") {
    lines.take();
    const name =
      lines.peek()?.startsWith("  name:") === true
        ? (match(GROUP_NAME, lines.take())[1] ?? null)
        : null;
    let purpose: string[] | null = null;
    if (lines.peek() === "  purpose:") {
      lines.take();
      purpose = lines.userLines();
    }
    const membersTarget = match(MEMBERS, lines.take())[1] ?? "";
    lines.expect("");
    group = { name, purpose, membersTarget };
  }
  const replyTarget = match(REPLY, lines.take())[1] ?? "";
  lines.expect("");
  lines.expect(FINISH);
  if (!lines.done()) throw new Error("own lines after the closing paragraph");
  return { ownLines, charter, quote, envelope, body, attachments, group, replyTarget };
}
