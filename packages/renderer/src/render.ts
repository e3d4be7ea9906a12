import { escapeLineStartUserText, escapeUserText } from "@talkide/text";
import type { RenderState } from "./state.ts";
import {
  ACTIVE_WRITER_HEADING,
  ACTIVE_WRITER_IMPORT,
  ACTIVE_WRITER_PATH,
  BEFORE_ACTIVE_WRITER,
  EM_DASH,
  MEMBER_BRIEFING,
  MEMBER_OPEN,
  MIDDLE,
  PROJECT_BACKEND,
  PROJECT_DESCRIPTION,
  PROJECT_FRONTEND,
  PROJECT_NAME,
  PROJECT_URL,
  QUOTE,
  QUOTE_EMPTY_LINE,
  TECH_SEPARATOR,
} from "./template.ts";

/*
 * Rendering is plain string concatenation over a validated state. It reads no clock, no
 * locale, no environment and no random source, and it cannot fail: everything that could
 * break the layout was refused or normalized by parseRenderState. (A test scans this
 * package's sources for Date, Intl, Math.random, locale-sensitive calls and process.)
 */

export type ContextFilePath = "CLAUDE.md" | typeof ACTIVE_WRITER_PATH;

export interface ContextFile {
  readonly path: ContextFilePath;
  readonly content: string;
}

export interface RenderContextFilesOptions {
  /**
   * `single`: one CLAUDE.md, the parity form the conformance cases pin. `split`: CLAUDE.md
   * imports `.talkide/active-writer.md`, so a change of writer touches only that small file
   * and Claude Code re-sends only it on a resumed turn.
   */
  readonly layout: "single" | "split";
}

/** CLAUDE.md v2, single-file form: the exact bytes the conformance cases pin. */
export function renderClaudeMd(state: RenderState): string {
  return renderSharedPart(state) + renderActiveWriter(state);
}

/**
 * The files to write into the project directory, paths relative to it. Replacing the split
 * CLAUDE.md's import line by the imported file's content gives the single file exactly.
 */
export function renderContextFiles(
  state: RenderState,
  options: RenderContextFilesOptions,
): ReadonlyArray<ContextFile> {
  if (options.layout === "single") return [{ path: "CLAUDE.md", content: renderClaudeMd(state) }];
  return [
    { path: "CLAUDE.md", content: renderSharedPart(state) + ACTIVE_WRITER_IMPORT },
    { path: ACTIVE_WRITER_PATH, content: renderActiveWriter(state) },
  ];
}

/** Everything up to and including the blank line before `# Aktuálně píše`. */
function renderSharedPart(state: RenderState): string {
  const project = state.project;
  let text =
    PROJECT_NAME +
    escapeUserText(project.name) +
    PROJECT_URL +
    (project.url === null ? EM_DASH : escapeUserText(project.url)) +
    PROJECT_DESCRIPTION +
    (project.description === null ? EM_DASH : escapeUserText(project.description)) +
    PROJECT_BACKEND +
    escapeUserText(project.backendLanguage) +
    TECH_SEPARATOR +
    escapeUserText(project.backendFramework) +
    PROJECT_FRONTEND +
    escapeUserText(project.frontendLanguage) +
    TECH_SEPARATOR +
    escapeUserText(project.frontendFramework) +
    MIDDLE;
  for (const member of state.team) {
    text +=
      MEMBER_OPEN +
      escapeLineStartUserText(member.salutation) +
      MEMBER_BRIEFING +
      quoteBriefing(member.teamBriefing === null ? EM_DASH : escapeUserText(member.teamBriefing)) +
      "\n";
  }
  return text + BEFORE_ACTIVE_WRITER;
}

/** `# Aktuálně píše`, then the active writer's salutation on a line of its own. */
function renderActiveWriter(state: RenderState): string {
  for (const member of state.team) {
    if (member.id === state.activeMemberId)
      return ACTIVE_WRITER_HEADING + escapeLineStartUserText(member.salutation) + "\n";
  }
  // parseRenderState admits no state whose active member is missing from the team.
  throw new Error("unreachable: the render state was not produced by parseRenderState");
}

/**
 * The line-prefix rule: `> ` before every line of the (normalized, `\n`-separated) text,
 * and `>` alone for an empty line, so no line ends in white space and none leaves the quote.
 * (Exported for the benchmark, whose template engines get this same helper.)
 */
export function quoteBriefing(text: string): string {
  let quoted = "";
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    const line = end === -1 ? text.slice(start) : text.slice(start, end);
    quoted += line === "" ? QUOTE_EMPTY_LINE : QUOTE + line;
    if (end === -1) return quoted;
    quoted += "\n";
    start = end + 1;
  }
}
