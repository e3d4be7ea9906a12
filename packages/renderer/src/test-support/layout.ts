import { toNfc } from "@talkide/context-spec/unicode";
/**
 * An independent reader of the CLAUDE.md layout, for properties: splits rendered bytes into
 * their parts and throws on any structural surprise (a heading too many or too few, a
 * briefing line outside the quote, a stray blank line, trailing white space, a missing final
 * line feed). It knows the template's structure, not the renderer's code.
 */
export interface ClaudeMdLayout {
  readonly name: string;
  readonly url: string;
  readonly description: string;
  readonly backend: string;
  readonly frontend: string;
  /** The 28 lines from `# Infrastructure` through the last welcome line. */
  readonly staticLines: ReadonlyArray<string>;
  readonly members: ReadonlyArray<{
    readonly salutation: string;
    readonly quotedLines: ReadonlyArray<string>;
  }>;
  readonly activeSalutation: string;
}

const TOP_HEADINGS = [
  "# Projekt",
  "# Infrastructure",
  "# Welcome instrukce",
  "# Tým",
  "# Aktuálně píše",
];

export function readLayout(output: string): ClaudeMdLayout {
  if (!output.endsWith("\n") || output.endsWith("\n\n"))
    fail("the file must end with exactly one line feed");
  if (/[\r\v\f\u0085\u2028\u2029]/u.test(output)) fail("a line break other than \\n");
  if (toNfc(output) !== output) fail("the output is not NFC");
  const lines = output.slice(0, -1).split("\n");
  lines.forEach((line, index) => {
    if (/\p{White_Space}$/u.test(line)) fail(`line ${index + 1} ends in white space`);
  });
  const headings = lines.filter((line) => line.startsWith("#"));
  const top = headings.filter((line) => !line.startsWith("##"));
  if (top.join("\n") !== TOP_HEADINGS.join("\n"))
    fail(`top-level headings are ${JSON.stringify(top)}`);
  lines.forEach((line, index) => {
    const isBlank = line === "";
    const nextIsHeading = lines[index + 1]?.startsWith("#") ?? false;
    if (isBlank !== nextIsHeading)
      fail(`line ${index + 1}: blank lines stand exactly before headings`);
  });

  let at = 0;
  const take = (): string => {
    const line = lines[at++];
    if (line === undefined) fail("the file ends early");
    return line;
  };
  const expectLine = (want: string): void => {
    const got = take();
    if (got !== want) fail(`line ${at}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  };
  const field = (label: string): string => {
    const line = take();
    const prefix = `- **${label}**: `;
    if (!line.startsWith(prefix)) fail(`line ${at}: want the ${label} line`);
    return line.slice(prefix.length);
  };

  expectLine("# Projekt");
  const name = field("Název");
  const url = field("URL");
  const description = field("Popis");
  const backend = field("Backend");
  const frontend = field("Frontend");
  expectLine("");
  const staticLines: string[] = [];
  while (at < lines.length && !(lines[at] === "" && lines[at + 1] === "# Tým"))
    staticLines.push(take());
  expectLine("");
  expectLine("# Tým");
  const members: { salutation: string; quotedLines: string[] }[] = [];
  while (lines[at] === "" && lines[at + 1]?.startsWith("## ") === true) {
    take();
    const heading = take();
    const match = /^## Oslovuj jako "([^"]*)"$/u.exec(heading);
    if (match === null) fail(`line ${at}: malformed member heading`);
    expectLine("Briefing pro tým:");
    const quotedLines: string[] = [];
    while (lines[at] !== "" && at < lines.length) {
      const line = take();
      if (line !== ">" && !line.startsWith("> "))
        fail(`line ${at}: a briefing line outside the quote`);
      quotedLines.push(line);
    }
    if (quotedLines.length === 0) fail(`line ${at}: a member without a briefing line`);
    members.push({ salutation: match[1] ?? "", quotedLines });
  }
  expectLine("");
  expectLine("# Aktuálně píše");
  const activeSalutation = take();
  if (at !== lines.length) fail("lines after the active writer");
  return { name, url, description, backend, frontend, staticLines, members, activeSalutation };
}

function fail(reason: string): never {
  throw new Error(`layout: ${reason}`);
}
