/**
 * The sections of the rendered CLAUDE.md (`spec/claude-md.md` of @talkide/context-spec; the
 * split form's `.talkide/active-writer.md` holds `# Aktuálně píše`), and what a change inside
 * each means to a member. Claude Code sends the files inside its instruction-file reminder, in
 * a user message; the heading above the first changed byte names the section.
 */
export const SECTIONS: ReadonlyArray<readonly [heading: string, phrase: string]> = [
  ["# Aktuálně píše", "the active writer changed"],
  ["# Tým", "the roster section changed"],
  ["# Welcome instrukce", "a briefing changed"],
  ["# Projekt", "the project's description changed"],
  ["# Infrastructure", "the infrastructure section changed"],
];

/** Under `# Tým`, a member's quoted briefing (`Briefing pro tým:` and its `> ` lines). */
export const BRIEFING_LINE = /^(?:Briefing pro tým:|>)/;
