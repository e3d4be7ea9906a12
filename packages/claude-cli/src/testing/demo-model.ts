import type { RecordedRequest } from "./fake-messages-api.ts";
import { instructionReminders, newInstructionReminders, type InstructionReminder } from "./wire.ts";

/**
 * The local demo model's answers: what the backend's stand-in for the Messages API says when
 * the service runs without ANTHROPIC_API_KEY. It is no language model. It reads the instruction
 * files Claude Code delivered in the request (CLAUDE.md and `.talkide/active-writer.md`, in
 * `<system-reminder>` blocks, see WIRE-NOTES.md) and says back what Mara received: the
 * project, the active writer, their briefing, the team and which files arrived in this turn.
 *
 * The answer is a function of the request body alone: no clock, no memory between requests
 * (one stand-in serves every project), nothing but fixed wording and text the request carries.
 * A resumed turn's request replays the whole conversation, so "what changed since the last
 * turn" is read from the request too: the files in its last user message against the copies
 * delivered before it.
 */

/** The answer's first words: nobody may take a demo answer for Claude's. */
export const DEMO_MODEL_MARK = "[demo model — not Claude]";

// The CLAUDE.md template's headings and lines (packages/context-spec/spec/claude-md.md).
const PROJECT_HEADING = "# Projekt";
const TEAM_HEADING = "# Tým";
const WRITER_HEADING = "# Aktuálně píše";
const NAME_LINE = "- **Název**: ";
const MEMBER_HEADING = /^## Oslovuj jako "(.+)"$/;

/** The demo model's whole answer to one `POST /v1/messages`. */
export function demoModelAnswer(request: RecordedRequest): string {
  const all = instructionReminders(request);
  const added = newInstructionReminders(request);
  // The reminders of the last user message are the last ones in message order.
  const before = all.slice(0, all.length - added.length);
  const now = deliveredFiles(all);
  const earlier = deliveredFiles(before);
  const projectDir = projectDirOf([...now.keys()]);

  const lines = [
    `${DEMO_MODEL_MARK} Odpovídá místní demo model, ne Claude: jen opakuje, co Mara dostala ` +
      "v tomto požadavku. Skutečné odpovědi: nastav ANTHROPIC_API_KEY a restartuj službu.",
    "",
  ];
  if (all.length === 0) {
    lines.push("V tomto požadavku nepřišel žádný instrukční soubor (CLAUDE.md).");
    return lines.join("\n");
  }

  const files = [...now.values()];
  const projectName = firstValue(files, PROJECT_HEADING, NAME_LINE);
  const writer = activeWriter(files);
  const previousWriter = activeWriter([...earlier.values()]);
  const team = teamOf(files);
  lines.push(`Projekt: ${projectName ?? "(bez názvu)"}`);
  lines.push(
    writer === null
      ? "Píše teď: (nikdo není uveden)"
      : previousWriter !== null && previousWriter !== writer
        ? `Píše teď: ${writer} (předtím: ${previousWriter})`
        : `Píše teď: ${writer}`,
  );
  if (team.length > 0) lines.push(`Tým: ${team.map((member) => member.salutation).join(", ")}`);
  const briefing = team.find((member) => member.salutation === writer)?.briefing ?? [];
  if (writer !== null && briefing.length > 0) {
    lines.push(`Briefing pro tým (${writer}):`, ...briefing);
  }
  lines.push("", changesLine(added, before.length === 0, projectDir));
  return lines.join("\n");
}

/** Each file's latest delivered content by absolute path, in order of first delivery. */
function deliveredFiles(reminders: readonly InstructionReminder[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const reminder of reminders) {
    for (const file of reminder.files) files.set(file.path, file.content);
    for (const path of reminder.removed) files.delete(path);
  }
  return files;
}

/** What this request's own reminders say, with paths relative to the project. */
function changesLine(
  added: readonly InstructionReminder[],
  firstTurn: boolean,
  projectDir: string | null,
): string {
  const relative = (path: string): string =>
    projectDir !== null && path.startsWith(`${projectDir}/`)
      ? path.slice(projectDir.length + 1)
      : path;
  const arrived = added.flatMap((reminder) => reminder.files.map((file) => relative(file.path)));
  const removed = added.flatMap((reminder) => reminder.removed.map(relative));
  if (firstTurn) {
    return `Začátek konverzace: přišly instrukční soubory ${arrived.join(", ")}.`;
  }
  if (arrived.length === 0 && removed.length === 0) {
    return "Od minulého tahu se žádný instrukční soubor nezměnil (Claude Code je neposlal znovu).";
  }
  const parts: string[] = [];
  if (arrived.length > 0) parts.push(`přišly znovu jen změněné soubory ${arrived.join(", ")}`);
  if (removed.length > 0) parts.push(`už nejsou ${removed.join(", ")}`);
  return `Od minulého tahu: ${parts.join("; ")}.`;
}

/** The directory of the project's CLAUDE.md (the shortest such path), if one was delivered. */
function projectDirOf(paths: readonly string[]): string | null {
  const claudeMds = paths
    .filter((path) => path.endsWith("/CLAUDE.md"))
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  const first = claudeMds[0];
  return first === undefined ? null : first.slice(0, -"/CLAUDE.md".length);
}

/** The lines of a top-level section (`# Heading`) of a file, up to the next one. */
function sectionLines(content: string, heading: string): string[] | null {
  const lines = content.split("\n");
  const start = lines.indexOf(heading);
  if (start === -1) return null;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith("# "));
  return end === -1 ? rest : rest.slice(0, end);
}

function firstValue(files: readonly string[], heading: string, prefix: string): string | null {
  for (const content of files) {
    const line = sectionLines(content, heading)?.find((l) => l.startsWith(prefix));
    if (line !== undefined) return line.slice(prefix.length);
  }
  return null;
}

/** The salutation under `# Aktuálně píše` (in CLAUDE.md, or the split form's own file). */
function activeWriter(files: readonly string[]): string | null {
  let writer: string | null = null;
  for (const content of files) {
    const line = sectionLines(content, WRITER_HEADING)?.find((l) => l.trim() !== "");
    if (line !== undefined) writer = line;
  }
  return writer;
}

interface DeliveredMember {
  readonly salutation: string;
  /** The briefing's quoted lines (`> …`), as CLAUDE.md carries them. */
  readonly briefing: readonly string[];
}

/** The `# Tým` entries: `## Oslovuj jako "X"`, then `Briefing pro tým:` and its `>` lines. */
function teamOf(files: readonly string[]): DeliveredMember[] {
  for (const content of files) {
    const lines = sectionLines(content, TEAM_HEADING);
    if (lines === null) continue;
    const team: Array<{ salutation: string; briefing: string[] }> = [];
    for (const line of lines) {
      const heading = MEMBER_HEADING.exec(line);
      if (heading?.[1] !== undefined) team.push({ salutation: heading[1], briefing: [] });
      else if (line.startsWith(">")) team.at(-1)?.briefing.push(line);
    }
    return team;
  }
  return [];
}
