// Writes the TypeScript that carries the spec's templates, so each text exists once: in the
// spec page (`packages/context-spec/spec/*.md`). The published renderer and prompts ship the
// generated constant and never read the spec at run time. Run `pnpm run generate:templates`
// after editing a spec template; `scripts/generate-templates.test.ts` fails while a generated
// file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { templateBlock } from "../packages/context-spec/src/interpreter/fenced-blocks.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const GENERATE_COMMAND = "pnpm run generate:templates";

interface GeneratedTemplate {
  /** The spec page whose single ```template block is the text. */
  readonly spec: string;
  /** The generated module, relative to the repository root. */
  readonly output: string;
  readonly exportName: string;
  readonly doc: string;
}

export const GENERATED_TEMPLATES: readonly GeneratedTemplate[] = [
  {
    spec: "packages/context-spec/spec/claude-md.md",
    output: "packages/renderer/src/template-text.generated.ts",
    exportName: "CLAUDE_MD_TEMPLATE",
    doc: "The CLAUDE.md template of the spec, placeholders and block lines included; `template.ts` cuts the renderer's static pieces from it.",
  },
  {
    spec: "packages/context-spec/spec/standing-prompt.md",
    output: "packages/prompts/src/standing/standing-prompt-template.generated.ts",
    exportName: "STANDING_PROMPT_TEMPLATE",
    doc: "The standing prompt's template: `{{brand}}` and `{{cli}}` placeholders and one `{{#each}}` part per optional capability; `standing-prompt.ts` fills it in.",
  },
  {
    spec: "packages/context-spec/spec/agent-file.md",
    output: "packages/prompts/src/mara/agent-file-text.generated.ts",
    exportName: "MARA_AGENT_FILE_TEXT",
    doc: "The text of Mara's agent file, `agents/talkide-pm.md` (contract 4.3): YAML front matter, then her prompt. It has no parameters at all.",
  },
];

/** A template literal that holds exactly `text`. */
function templateLiteral(text: string): string {
  return "`" + text.replace(/[\\`]/g, (char) => `\\${char}`).replace(/\$\{/g, "\\${") + "`";
}

/** The bytes a generated module must hold. */
export function generatedModule(template: GeneratedTemplate, root: string = ROOT): string {
  const text = templateBlock(readFileSync(join(root, template.spec), "utf8"), template.spec);
  return [
    `// Generated from ${template.spec} by \`${GENERATE_COMMAND}\`: do not edit.`,
    "// Edit the spec page's ```template block, then run the command.",
    "",
    `/** ${template.doc} */`,
    `export const ${template.exportName} = ${templateLiteral(text)};`,
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const template of GENERATED_TEMPLATES) {
    writeFileSync(join(ROOT, template.output), generatedModule(template));
    console.log(`wrote ${template.output} from ${template.spec}`);
  }
}
