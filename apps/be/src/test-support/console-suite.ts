import { describe, it } from "vitest";
import { builtConsoleDir } from "../http/console.ts";
import { browserUnavailableReason } from "./browser.ts";
import { REAL_CLAUDE } from "./wire-harness.ts";

/**
 * Why the console's browser suites cannot run here (no chromium, no claude binary, the
 * console not built), or null when they can.
 */
function consoleSuiteBlocked(): string | null {
  return (
    browserUnavailableReason() ??
    (REAL_CLAUDE === null
      ? "the claude binary of @anthropic-ai/claude-code is not installed for this platform."
      : null) ??
    (builtConsoleDir() === null
      ? "the console is not built: run `pnpm --filter @talkide/console run build` (npm test builds it before the tests)."
      : null)
  );
}

/**
 * `describe` for a suite that drives the built console in real Chromium. Where it cannot run,
 * it is skipped with a loud warning, except under CI=true, where it fails: a missing browser
 * must never pass unnoticed.
 */
export function describeInChromium(name: string, suite: () => void): void {
  const blocked = consoleSuiteBlocked();
  if (blocked !== null && process.env.CI === "true") {
    describe(name, () => {
      it("can run here", () => {
        throw new Error(`The browser suite cannot run: ${blocked}`);
      });
    });
    return;
  }
  if (blocked !== null) console.warn(`\n!!! SKIPPING ${name}: ${blocked} !!!\n`);
  describe.skipIf(blocked !== null)(name, suite);
}
