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
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
