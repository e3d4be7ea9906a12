// One linter for the whole repo. typescript-eslint runs with full type information (the
// TypeScript compiler itself), which is what catches a floating promise returned by a
// library call (fastify, pglite, fs/promises) — a syntactic linter cannot see those types.
// Formatting belongs to Prettier; eslint-config-prettier switches off rules that overlap.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

// Every app of the workspace (a folder under apps/ with a package.json): its folder and
// package name, so a new app is covered by the rule below without anyone listing it.
const appsDir = join(import.meta.dirname, "apps");
const apps = readdirSync(appsDir)
  .filter((folder) => existsSync(join(appsDir, folder, "package.json")))
  .map((folder) => ({
    folder,
    name: JSON.parse(readFileSync(join(appsDir, folder, "package.json"), "utf8")).name,
  }));

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      ".tools/**",
      "packages/context-spec/cases/**",
      "**/test-fixtures/**",
      "scripts/lint-fixtures/**",
      // Vue single-file components are type-checked by vue-tsc (apps/console's typecheck);
      // eslint-plugin-vue would add a second parser stack for little gain.
      "**/*.vue",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      // Two programs for the whole repo: the root one (every file outside the console) and the
      // console's (DOM types). A program per package would re-read the sources of every
      // workspace package it imports, so the same files were parsed and bound many times.
      parserOptions: {
        project: ["./tsconfig.json", "./apps/console/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    // The contract's white space is the Unicode White_Space property; String#trim (and
    // trimStart/trimEnd, and zod's .trim()) strip U+FEFF, which is not white space, and keep
    // U+0085, which is. User text is trimmed with `trimWhiteSpace` of @talkide/text. Tests,
    // and the files below whose trims read no user text, may keep String#trim.
    files: ["apps/**/*.ts", "packages/**/*.ts"],
    ignores: [
      "**/*.test.ts",
      "**/test-support/**",
      "**/bench/**",
      "**/testing/**",
      // The reference interpreter and the spec tooling: an independent oracle that shares no
      // code with the implementations, and readers of the package's own data files.
      "packages/context-spec/src/**",
      // Environment variables, tokens and pid files written by the services themselves.
      "apps/be/src/config.ts",
      "packages/service-kit/src/cli/admin-token.ts",
      "packages/service-kit/src/environment.ts",
      "packages/service-kit/src/data-dir.ts",
      "apps/daemon/src/upstream/turn-credentials.ts",
      "apps/hub/src/cli/program.ts",
      "apps/hub/src/cli/local-loop.ts",
      "apps/hub/src/ticlawk/program.ts",
      // The daemon's own error text, built by the hub from the daemon's answer.
      "apps/hub/src/daemon-client.ts",
      // Output of other programs and protocol text: claude's stderr and version, stream-json
      // lines, a Content-Type header, /proc/net and ps output, PostgreSQL's command output.
      "packages/claude-cli/src/turn-observation.ts",
      "packages/claude-cli/src/stream-json.ts",
      "packages/claude-cli/src/version.ts",
      "packages/claude-cli/src/claude-args.ts",
      "packages/strict-json/src/strict-json.ts",
      "packages/ports/src/socket-table.ts",
      "packages/test-postgres/src/**",
      // The browser console trims a sign-in token and drops empty form fields; the backend
      // decides what is blank.
      "apps/console/src/**",
    ],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name=/^trim(Start|End)?$/]",
          message:
            "String#trim strips U+FEFF, which the contract says is not white space: use trimWhiteSpace (or isBlank) from @talkide/text, or add the file to the allowlist in eslint.config.js if it trims no user text.",
        },
      ],
    },
  },
  // No app imports another app's code (production or tests): what two apps share lives in a
  // package under packages/, and apps meet over HTTP or as child processes. (The backend
  // serving the console's built files resolves the console's package.json: no import.)
  ...apps.map((app) => {
    const others = apps.filter((other) => other.name !== app.name);
    return {
      files: [`apps/${app.folder}/**/*.{ts,mts,cts,js,mjs,cjs}`],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: [
              {
                group: others.flatMap((other) => [other.name, `${other.name}/*`]),
                message: `${app.name} imports no other app: move what both need into a package under packages/ (or start the other app as a process).`,
              },
              {
                // A relative path through apps/ or into another app's sources or build.
                regex: `(^|/)apps/|(^|/)(${others.map((other) => other.folder).join("|")})/(src|dist)(/|$)`,
                message: `${app.name} imports no other app's files: move what both need into a package under packages/.`,
              },
            ],
          },
        ],
      },
    };
  }),
  {
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
