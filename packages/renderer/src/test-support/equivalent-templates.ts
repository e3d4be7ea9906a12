import { createRequire } from "node:module";
import { Liquid } from "liquidjs";
import { escapeLineStartUserText, escapeUserText } from "@talkide/text";
import { quoteBriefing } from "../render.ts";
import type { RenderState } from "../state.ts";
import { MIDDLE } from "../template.ts";

/**
 * The CLAUDE.md template in Handlebars and in Liquid, and the same output written as plain
 * string concatenation (the floor), for the benchmark. Each takes the validated state
 * (the same input as renderClaudeMd) and must give the same bytes; equivalent-templates.test.ts
 * and the benchmark both check that before anything is measured.
 */

// Handlebars is CommonJS with `export =` typings: load it as such rather than loosening the
// repository's module settings for one benchmark dependency.
const Handlebars = createRequire(import.meta.url)("handlebars") as typeof import("handlebars");

/** `# Infrastructure` … the welcome block, as the templates embed it (static text). */
const STATIC_MIDDLE = MIDDLE.slice(2, -"\n\n# Tým\n".length);

/**
 * The line-prefix rule. Every engine here, and the floor, gets the renderer's own
 * implementation: it is the fastest form measured (faster than split/map/join and than two
 * replaceAll passes), so no row is slowed down by a worse helper.
 */
function quoteLines(text: string | null): string {
  return text === null ? "> —" : quoteBriefing(text);
}

/**
 * The state with every user value in its import-safe form (spec: "User text loads no file"),
 * as each engine would get it from a pre-pass or a filter; the renderer's own helper, for
 * the same reason as above.
 */
function importSafeView(state: RenderState): RenderState {
  const { project } = state;
  return {
    ...state,
    project: {
      ...project,
      name: escapeUserText(project.name),
      url: project.url === null ? null : escapeUserText(project.url),
      description: project.description === null ? null : escapeUserText(project.description),
      backendLanguage: escapeUserText(project.backendLanguage),
      backendFramework: escapeUserText(project.backendFramework),
      frontendLanguage: escapeUserText(project.frontendLanguage),
      frontendFramework: escapeUserText(project.frontendFramework),
    },
    team: state.team.map((member) => ({
      ...member,
      salutation: escapeLineStartUserText(member.salutation),
      teamBriefing: member.teamBriefing === null ? null : escapeUserText(member.teamBriefing),
    })),
  };
}

function activeSalutation(state: RenderState): string {
  return state.team.find((member) => member.id === state.activeMemberId)?.salutation ?? "";
}

const HANDLEBARS_SOURCE = `# Projekt
- **Název**: {{project.name}}
- **URL**: {{#if project.url}}{{project.url}}{{else}}—{{/if}}
- **Popis**: {{#if project.description}}{{project.description}}{{else}}—{{/if}}
- **Backend**: {{project.backendLanguage}} / {{project.backendFramework}}
- **Frontend**: {{project.frontendLanguage}} / {{project.frontendFramework}}

${STATIC_MIDDLE}

# Tým
{{#each team}}

## Oslovuj jako "{{salutation}}"
Briefing pro tým:
{{quote teamBriefing}}
{{/each}}

# Aktuálně píše
{{activeSalutation this}}
`;

/**
 * Handlebars, compiled once up front (what a precompiled template runs), with HTML escaping
 * off: Markdown, not HTML. `quote` and `activeSalutation` are helpers, as they would be in a
 * real Handlebars renderer.
 */
export function createHandlebarsRenderer(): (state: RenderState) => string {
  const handlebars = Handlebars.create();
  handlebars.registerHelper("quote", (text: string | null) => quoteLines(text));
  handlebars.registerHelper("activeSalutation", (state: RenderState) => activeSalutation(state));
  const template = handlebars.compile<RenderState>(HANDLEBARS_SOURCE, {
    noEscape: true,
    strict: false,
  });
  return (state) => template(importSafeView(state));
}

const LIQUID_SOURCE = `# Projekt
- **Název**: {{ project.name }}
- **URL**: {{ project.url | default: "—" }}
- **Popis**: {{ project.description | default: "—" }}
- **Backend**: {{ project.backendLanguage }} / {{ project.backendFramework }}
- **Frontend**: {{ project.frontendLanguage }} / {{ project.frontendFramework }}

${STATIC_MIDDLE}

# Tým
{% for member in team %}
## Oslovuj jako "{{ member.salutation }}"
Briefing pro tým:
{{ member.teamBriefing | quote }}
{% endfor %}
# Aktuálně píše
{% for member in team %}{% if member.id == activeMemberId %}{{ member.salutation }}{% endif %}{% endfor %}
`;

/** LiquidJS, parsed once up front, rendered synchronously, no output escaping. */
export function createLiquidRenderer(): (state: RenderState) => string {
  const engine = new Liquid({ strictFilters: true });
  engine.registerFilter("quote", (text: string | null) => quoteLines(text));
  const template = engine.parse(LIQUID_SOURCE);
  return (state) => engine.renderSync(template, importSafeView(state)) as string;
}

/** The floor: the output written out by hand as one chain of concatenations. */
export function renderByConcatenation(unsafeState: RenderState): string {
  const state = importSafeView(unsafeState);
  const { project } = state;
  let text = `# Projekt
- **Název**: ${project.name}
- **URL**: ${project.url ?? "—"}
- **Popis**: ${project.description ?? "—"}
- **Backend**: ${project.backendLanguage} / ${project.backendFramework}
- **Frontend**: ${project.frontendLanguage} / ${project.frontendFramework}

${STATIC_MIDDLE}

# Tým
`;
  for (const member of state.team) {
    text += `\n## Oslovuj jako "${member.salutation}"\nBriefing pro tým:\n${quoteLines(member.teamBriefing)}\n`;
  }
  return `${text}\n# Aktuálně píše\n${activeSalutation(state)}\n`;
}
