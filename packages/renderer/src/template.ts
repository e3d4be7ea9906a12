/**
 * The static text of CLAUDE.md v2, cut at the placeholders of the spec's template
 * (`packages/context-spec/spec/claude-md.md`, generated into `template-text.generated.ts`).
 * The conformance cases pin every byte of it.
 */
import { stripTrailingWhiteSpace } from "@talkide/text";
import { CLAUDE_MD_TEMPLATE } from "./template-text.generated.ts";

export const EM_DASH = "—";

// Each static piece is the text between two tags of the spec's template, so the text exists
// once, in the spec page; a tag that is not found stops the module from loading.
const TAGS = {
  name: "{{project.name}}",
  url: '{{project.url | default: "—"}}',
  description: '{{project.description | default: "—"}}',
  backendLanguage: "{{project.backendLanguage}}",
  backendFramework: "{{project.backendFramework}}",
  frontendLanguage: "{{project.frontendLanguage}}",
  frontendFramework: "{{project.frontendFramework}}",
  eachMember: "{{#each team-member ordered by createdAt asc, then id asc}}\n",
  salutation: "{{member.salutation}}",
  briefingLine: '> {{member.teamBriefing | default: "—"}}',
  briefing: '{{member.teamBriefing | default: "—"}}',
  endEach: "{{/each}}\n",
  activeSalutation: "{{activeMember.salutation}}",
} as const;

function indexOfTag(tag: string, from: number): number {
  const index = CLAUDE_MD_TEMPLATE.indexOf(tag, from);
  if (index < 0) {
    throw new Error(
      `The CLAUDE.md template has no ${JSON.stringify(tag)}: run \`pnpm run generate:templates\` and update template.ts to the spec.`,
    );
  }
  return index;
}

/** The text after `after` (or from the start) up to `before`. */
function between(after: string | null, before: string): string {
  const start = after === null ? 0 : indexOfTag(after, 0) + after.length;
  return CLAUDE_MD_TEMPLATE.slice(start, indexOfTag(before, start));
}

export const PROJECT_NAME = between(null, TAGS.name);
export const PROJECT_URL = between(TAGS.name, TAGS.url);
export const PROJECT_DESCRIPTION = between(TAGS.url, TAGS.description);
export const PROJECT_BACKEND = between(TAGS.description, TAGS.backendLanguage);
export const PROJECT_FRONTEND = between(TAGS.backendFramework, TAGS.frontendLanguage);
export const TECH_SEPARATOR = between(TAGS.backendLanguage, TAGS.backendFramework);

/**
 * From the end of the Frontend line through the `# Tým` heading line: the infrastructure
 * pointer and the welcome block (the 24 lines of the original design page, identical for every
 * project, so the top of the file stays in the model provider's prompt cache).
 */
export const MIDDLE = between(TAGS.frontendFramework, TAGS.eachMember);

export const MEMBER_OPEN = between(TAGS.eachMember, TAGS.salutation);
export const MEMBER_BRIEFING = between(TAGS.salutation, TAGS.briefingLine);
/** What stands before the briefing on its line, repeated before every line (the line-prefix rule). */
export const QUOTE = between(TAGS.salutation + MEMBER_BRIEFING, TAGS.briefing);
/** An empty briefing line: the quote prefix without its trailing space. */
export const QUOTE_EMPTY_LINE = stripTrailingWhiteSpace(QUOTE);

const AFTER_TEAM = between(TAGS.endEach, TAGS.activeSalutation);
/** The blank line before the active writer's section, which the shared part ends with. */
export const BEFORE_ACTIVE_WRITER = AFTER_TEAM.slice(0, 1);
export const ACTIVE_WRITER_HEADING = AFTER_TEAM.slice(1);

/** The split form's import line in CLAUDE.md, standing where the last section would be. */
export const ACTIVE_WRITER_PATH = ".talkide/active-writer.md";
export const ACTIVE_WRITER_IMPORT = `@${ACTIVE_WRITER_PATH}\n`;

export const DEFAULT_BACKEND_LANGUAGE = "Kotlin";
export const DEFAULT_BACKEND_FRAMEWORK = "Spring Boot";
export const DEFAULT_FRONTEND_LANGUAGE = "TypeScript";
export const DEFAULT_FRONTEND_FRAMEWORK = "Vue.js";
