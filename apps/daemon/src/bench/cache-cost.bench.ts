// What the daemon's turns cost at the provider's prompt cache: the real pinned `claude` CLI
// run by the daemon against the caching stand-in Messages API (issue 28, part 3). Prints
// Markdown for BENCHMARKS.md. Token figures are deterministic; nothing here is timed.
//   pnpm --filter @talkide/daemon run bench   (or: node --conditions=@talkide/source src/bench/cache-cost.bench.ts)
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CACHE_ANCHORS,
  costTable,
  REAL_CLAUDE_VERSION,
  stepCost,
  totalRatio,
} from "@talkide/claude-cli/testing";
import { daemonScenario } from "./cache-cost-scenario.ts";

const root = await mkdtemp(join(tmpdir(), "talkide-daemon-cache-bench-"));
try {
  const costs = (await daemonScenario(root)).map(stepCost);
  console.log(
    [
      "## Prompt-cache cost per step: the daemon scenario",
      "",
      `claude ${REAL_CLAUDE_VERSION} (pinned), run by an in-process daemon, against the caching stand-in; ${new Date().toISOString().slice(0, 10)}. Billed input = uncached ×1 + cache write ×1.25 (5 m) or ×2 (1 h, the daemon's default) + cache read ×0.1, in tokens (UTF-8 bytes / 3.6 per block). Ideal = the turn request's genuinely new text (the wake prompt and the previous answer; everything on the very first request) written once, the rest read.`,
      "",
      ...costTable(costs),
      "",
      `Whole scenario: billed input ${totalRatio(costs).toFixed(2)}× the ideal.`,
      "",
      ...CACHE_ANCHORS,
    ].join("\n"),
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
