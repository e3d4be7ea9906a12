import { readFileSync } from "node:fs";
import { join } from "node:path";
import { systemPromptText, type RecordedRequest } from "@talkide/claude-cli/testing";
import { waitFor } from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MARA_PROMPT,
  startWireBench,
  realClaudeCanRun,
  type WireBench,
} from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be delegation wire suite");

/** What Mara passes to the analyst: the slice of the briefings its task needs, nothing else. */
const SLICE = "Write the specification of the order form. The team wants state kept in one store.";
const ANALYST_TITLE = "# Analyst of a TalkIDE Team";

/**
 * At the wire: Mara, run by the service with her plugin, delegates to the team's analyst. The
 * analyst's requests carry the delegation and no byte of the project's CLAUDE.md.
 */
describe.skipIf(!canRun)("at the wire: a delegated team agent", () => {
  let bench: WireBench;

  beforeAll(async () => {
    bench = await startWireBench("split");
    bench.fake.setReply((request) => {
      // Mara delegates once; the analyst and Mara's follow-up just finish.
      if (
        systemPromptText(request).includes(MARA_PROMPT) &&
        !request.rawBody.includes("tool_result")
      ) {
        // The message names the agent Mara calls: the team's analyst, or one of Claude Code's own.
        const target = /DELEGATE-TO:([\w:-]+)/.exec(request.rawBody)?.[1] ?? "talkide:analyst";
        return {
          content: [
            {
              type: "tool_use",
              id: `toolu_01Delegate${target.replace(/\W/g, "")}`,
              name: "Agent",
              input: { description: "Order form spec", prompt: SLICE, subagent_type: target },
            },
          ],
        };
      }
      return { text: "Done." };
    });
  });
  afterAll(async () => {
    await bench.close();
  });

  it("gets the slice Mara passed and nothing of CLAUDE.md", async () => {
    const project = await bench.newProject();
    const before = bench.fake.messageRequests().length;
    await bench.turn(bench.anna, project.id, "Potřebujeme objednávkový formulář.", "delegation");
    // The pinned CLI launches the agent in the background ("Async agent launched successfully"):
    // Mara's turn may end before the analyst's first request is sent (seen under a loaded CI
    // run), so the test waits for it instead of reading the requests as the turn ends.
    const analyst: RecordedRequest[] = await waitFor(async () => {
      const found = bench.fake
        .messageRequests()
        .slice(before)
        .filter((r) => systemPromptText(r).includes(ANALYST_TITLE));
      return Promise.resolve(found.length > 0 ? found : null);
    }, "the analyst's first request");
    const requests = bench.fake.messageRequests().slice(before);
    const claudeMd = readFileSync(join(project.workspaceDir, "CLAUDE.md"), "utf8");
    const writer = readFileSync(join(project.workspaceDir, ".talkide", "active-writer.md"), "utf8");
    for (const request of analyst) {
      expect(request.rawBody).toContain(JSON.stringify(SLICE).slice(1, -1));
      expect(request.rawBody).not.toContain("(project instructions");
      // Every line of the rendered files that is more than a heading: roster, briefings, names.
      for (const line of [...claudeMd.split("\n"), ...writer.split("\n")]) {
        if (line.length < 12 || line.startsWith("@")) continue;
        expect(request.rawBody).not.toContain(JSON.stringify(line).slice(1, -1));
      }
    }
    // Mara herself still reads CLAUDE.md: the rule is about the delegated agent only.
    const mara = requests.find((r) => systemPromptText(r).includes(MARA_PROMPT));
    expect(mara?.rawBody).toContain("(project instructions");
  });

  it.each(["general-purpose", "claude", "statusline-setup", "Explore", "Plan"])(
    "refuses Claude Code's own %s agent: Mara delegates only to her team",
    async (agent) => {
      const project = await bench.newProject();
      const before = bench.fake.messageRequests().length;
      await bench.turn(bench.anna, project.id, `Zkus to. DELEGATE-TO:${agent}`, `deny ${agent}`);
      const requests = bench.fake.messageRequests().slice(before);
      // Only Mara's own requests: the delegation is refused before any agent starts.
      for (const request of requests) {
        expect(systemPromptText(request)).toContain(MARA_PROMPT);
      }
      const last = requests.at(-1)?.rawBody ?? "";
      expect(last).toContain(`Agent type '${agent}' has been denied by permission rule`);
    },
    180_000,
  );
});
