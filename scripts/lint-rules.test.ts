import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

async function lintFixture(name: string): Promise<string[]> {
  // The fixtures sit under an ignored folder so `pnpm lint` stays green; lint them explicitly.
  const eslint = new ESLint({ cwd: root, ignore: false });
  const [result] = await eslint.lintFiles([`scripts/lint-fixtures/${name}`]);
  return (result?.messages ?? []).map((message) => `${message.line}:${message.ruleId ?? "fatal"}`);
}

describe("the repo's ESLint configuration", () => {
  it("flags floating promises, including ones typed by a library (node:fs/promises)", async () => {
    const problems = await lintFixture("floating-promise.ts");
    expect(problems).toContain("9:@typescript-eslint/no-floating-promises");
    expect(problems).toContain("10:@typescript-eslint/no-floating-promises");
  });

  it("accepts promises that are awaited or explicitly voided with a handler", async () => {
    expect(await lintFixture("awaited-promise.ts")).toEqual([]);
  });

  it("forbids String#trim in the apps and packages outside the allowlist", async () => {
    const eslint = new ESLint({ cwd: root });
    const code = "export const name = (value: string): string => value.trim() + value.trimEnd();\n";
    // The text of an existing file is replaced, so the type-aware rules find its project.
    const [flagged] = await eslint.lintText(code, { filePath: "apps/be/src/errors.ts" });
    expect(
      (flagged?.messages ?? [])
        .filter((m) => m.ruleId === "no-restricted-syntax")
        .map((m) => m.column),
    ).toEqual([48, 63]);
    const [allowed] = await eslint.lintText(code, { filePath: "apps/be/src/config.ts" });
    expect((allowed?.messages ?? []).filter((m) => m.ruleId === "no-restricted-syntax")).toEqual(
      [],
    );
  });
});
