import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@talkide/source"] },
  ssr: { resolve: { conditions: ["@talkide/source"] } },
  test: { name: "prompts", include: ["src/**/*.test.ts"] },
});
