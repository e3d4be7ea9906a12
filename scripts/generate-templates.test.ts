import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GENERATE_COMMAND, GENERATED_TEMPLATES, generatedModule } from "./generate-templates.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("the TypeScript generated from the spec's templates", () => {
  it.each(GENERATED_TEMPLATES.map((template) => [template.output, template] as const))(
    "%s is current",
    (output, template) => {
      const current = readFileSync(join(root, output), "utf8");
      if (current !== generatedModule(template)) {
        expect.fail(
          `${output} is not what ${template.spec} generates: run \`${GENERATE_COMMAND}\` and commit the result.`,
        );
      }
    },
  );
});
