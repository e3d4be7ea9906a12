import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@talkide/source"] },
  ssr: { resolve: { conditions: ["@talkide/source"] } },
  test: { name: "claude-cli", include: ["src/**/*.test.ts"] },
});
