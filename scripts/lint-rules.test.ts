import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

async function lintFixture(name: string): Promise<string[]> {
  // The fixtures sit under an ignored folder so `pnpm lint` stays green; lint them explicitly.
  // The repo's rules, with a TypeScript program of the fixtures alone (their tsconfig.json):
  // the repo's two programs cost about ten seconds of CPU to build, for two small files.
  const eslint = new ESLint({
    cwd: root,
    ignore: false,
    overrideConfig: {
      languageOptions: {
        parserOptions: { project: ["./scripts/lint-fixtures/tsconfig.json"] },
      },
    },
  });
  const [result] = await eslint.lintFiles([`scripts/lint-fixtures/${name}`]);
  return (result?.messages ?? []).map((message) => `${message.line}:${message.ruleId ?? "fatal"}`);
}

/**
 * The repo's configuration with only the rules that read syntax (which files get which
 * restriction is what these tests prove) and no TypeScript program: the type-aware rules are
 * proved on real files above, and a program built for text that is not on disk is slow and
 * depends on every other file of the tree at that moment.
 */
function syntaxRulesOnly(): ESLint {
  return new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { project: false } } },
    ruleFilter: ({ ruleId }) =>
      ruleId === "no-restricted-syntax" || ruleId === "no-restricted-imports",
  });
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
    const eslint = syntaxRulesOnly();
    const code = "export const name = (value: string): string => value.trim() + value.trimEnd();\n";
    const [flagged] = await eslint.lintText(code, { filePath: "apps/be/src/errors.ts" });
    expect((flagged?.messages ?? []).filter((m) => m.fatal === true)).toEqual([]);
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

  it("fails an app that imports another app, by package name or by path, in code and tests", async () => {
    const eslint = syntaxRulesOnly();
    const restricted = async (filePath: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath });
      expect((result?.messages ?? []).filter((m) => m.fatal === true)).toEqual([]);
      // The lines flagged (an import may match both the package and the path pattern).
      return [
        ...new Set(
          (result?.messages ?? [])
            .filter((m) => m.ruleId === "no-restricted-imports")
            .map((m) => m.line),
        ),
      ];
    };
    const hub = [
      'import { loadConfig } from "@talkide/daemon";',
      'import { startTestDaemon } from "@talkide/daemon/testing";',
      'import { startDaemon } from "../../../daemon/src/daemon.ts";',
      'export { ApiError } from "@talkide/be";',
      'import { createLogger } from "@talkide/service-kit";',
      'import { startHub } from "../server.ts";',
      "export const used = [loadConfig, startTestDaemon, startDaemon, createLogger, startHub];",
      "",
    ].join("\n");
    expect(await restricted("apps/hub/src/cli/local-loop.ts", hub)).toEqual([1, 2, 3, 4]);
    expect(await restricted("apps/hub/src/routing.pglite.test.ts", hub)).toEqual([1, 2, 3, 4]);
    const consoleCode = 'import type { Project } from "@talkide/be/src/domain/projects.ts";\n';
    expect(await restricted("apps/console/src/api.ts", consoleCode)).toEqual([1]);
    const daemonCode = 'import { startHub } from "@talkide/hub";\nexport const start = startHub;\n';
    expect(await restricted("apps/daemon/src/config.ts", daemonCode)).toEqual([1]);
    // Packages are what apps share: importing them stays allowed.
    const shared =
      'import { createLogger } from "@talkide/service-kit";\nexport const log = createLogger;\n';
    expect(await restricted("apps/daemon/src/config.ts", shared)).toEqual([]);
  });
});
