import { defineProject } from "vitest/config";

// Unit tests of the console's pure modules. The console is driven in a real browser by
// apps/be's console suite (src/http/console.browser.test.ts), against the real backend.
export default defineProject({
  test: {
    name: "console",
    include: ["src/**/*.test.ts"],
  },
});
