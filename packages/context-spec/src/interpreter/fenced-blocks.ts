// Fenced code blocks of a Markdown spec page: the template and the examples live in them.
// Only back-tick fences starting in column 0 are recognized, which is all the spec pages use.

export interface FencedBlock {
  /** The info string after the opening fence, trimmed (e.g. "template", "example claude-md/x"). */
  readonly info: string;
  /** The block's lines, each followed by "\n": exactly the bytes between the fences. */
  readonly content: string;
  /** 1-based line number of the opening fence, for error messages. */
  readonly line: number;
}

const OPENING_FENCE = /^(`{3,})([^`]*)$/;

export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = OPENING_FENCE.exec(lines[index] ?? "");
    if (opening === null) continue;
    const fence = opening[1] ?? "```";
    const closing = new RegExp(`^\`{${String(fence.length)},}[ \\t]*$`);
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] ?? "")) body.push(lines[end++] ?? "");
    if (end >= lines.length) {
      throw new Error(
        `Unclosed code fence opened on line ${String(index + 1)}: add the closing ${fence}.`,
      );
    }
    blocks.push({
      info: (opening[2] ?? "").trim(),
      content: body.map((line) => `${line}\n`).join(""),
      line: index + 1,
    });
    index = end;
  }
  return blocks;
}

/** The content of the single ```template block of a spec page. */
export function templateBlock(markdown: string, source: string): string {
  const templates = fencedBlocks(markdown).filter((block) => block.info === "template");
  if (templates.length !== 1) {
    throw new Error(
      `${source} must hold exactly one \`\`\`template block; it holds ${String(templates.length)}.`,
    );
  }
  return templates[0]?.content ?? "";
}
