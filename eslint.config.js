// One linter for the whole repo. typescript-eslint runs with full type information (the
// TypeScript compiler itself), which is what catches a floating promise returned by a
// library call (fastify, pglite, fs/promises) — a syntactic linter cannot see those types.
// Formatting belongs to Prettier; eslint-config-prettier switches off rules that overlap.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

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
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
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
      "apps/daemon/src/cli/admin-token.ts",
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
      "packages/claude-cli/src/turn-outcome.ts",
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
  {
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
