import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  classifyRequests,
  manifestReport,
  readPins,
  RUNTIME_DYNAMIC_PATTERNS,
  REAL_CLAUDE_PATH,
  realClaudeSuiteCanRun,
  REAL_CLAUDE_VERSION,
  realClaudeEnv,
  startFakeMessagesApi,
  type OurText,
} from "@talkide/claude-cli/testing";
import { buildInboundWakePrompt, parseDelivery, STANDING_PROMPT } from "@talkide/prompts";
import { describe, expect, it } from "vitest";
import { makeDelivery, makeTempDir, removeDir, startTestDaemon } from "../test-support/harness.ts";

/**
 * Contract section 6 for the daemon: every block of every request of an agent's turns is the
 * runtime's own fixed text (pinned by sha256 and length per CLI version, never stored as text),
 * the standing prompt, the wake prompt, or the conversation's earlier successful turns. An
 * unknown block fails with a report of what it was and where it stood. Re-pin after a CLI
 * upgrade with `sh scripts/toolchain.sh pnpm run wire:repin` (both apps, scripts/wire-repin.ts),
 * once the blocks it pinned show only runtime text.
 */
const PINS = join(import.meta.dirname, `manifest.claude-${REAL_CLAUDE_VERSION}.json`);
const REPLY = "Odpověděl jsem do skupiny.";

const canRun = realClaudeSuiteCanRun("the daemon's wire manifest suite");

describe.skipIf(!canRun)("the daemon at the wire: every block accounted for", () => {
  it("classifies a fresh turn and a resumed turn of one conversation", async () => {
    const dir = await makeTempDir();
    const api = await startFakeMessagesApi({ reply: { text: REPLY } });
    const home = join(dir, "home");
    await mkdir(join(home, "tmp"), { recursive: true });
    const td = await startTestDaemon({
      dataDir: join(dir, "data"),
      config: { claudePath: REAL_CLAUDE_PATH ?? "", concurrency: 1, turnTimeoutMs: 120_000 },
      childBaseEnv: realClaudeEnv({
        baseUrl: api.url,
        home,
        extra: { TMPDIR: join(home, "tmp") },
      }),
      killGraceMs: 2000,
    });
    try {
      const workspace = join(dir, "agents", "alice");
      await td.api.registerAgent("alice", workspace);
      const deliveries = [
        makeDelivery({
          conversation_id: "c-1",
          conversation_name: "kuchyne",
          text: "Je polévka hotová?",
        }),
        makeDelivery({
          conversation_id: "c-1",
          conversation_name: "kuchyne",
          text: "A co knedlíky?",
        }),
      ];
      const wakes = deliveries.map((d) => buildInboundWakePrompt(parseDelivery(d)).text);
      for (const delivery of deliveries) {
        const ack = await td.api.deliver("alice", delivery);
        const [done] = await td.api.settled([ack.body.delivery.id]);
        expect(done?.state, JSON.stringify(done)).toBe("completed");
      }
      const requests = api.messageRequests();
      expect(requests).toHaveLength(2);
      const ours = (index: number): OurText[] => [
        { label: "standing-prompt", text: STANDING_PROMPT },
        { label: "wake-prompt", text: wakes[index] ?? "" },
        ...wakes.slice(0, index).map((text) => ({ label: "earlier-turn:wake-prompt", text })),
        ...(index > 0 ? [{ label: "earlier-turn:reply", text: REPLY }] : []),
      ];
      // Every turn runs with the sandbox (issue 49), whose description in the environment
      // message lists the paths it denies and allows: under the test's directory, the
      // workspace's project directory of the CLI, the session's turn-env file.
      const [daemonSession] = await td.api.sessions("&agentId=alice");
      const dynamic = {
        workspace,
        "workspace-slug": workspace.replace(/[^a-zA-Z0-9]/g, "-"),
        root: dir,
        session: requests[0]?.headers["x-claude-code-session-id"] ?? "",
        "daemon-session": daemonSession?.id ?? "",
        date: new Date().toISOString().slice(0, 10),
      };
      const pins = existsSync(PINS) ? await readPins(PINS) : {};
      const manifest = classifyRequests({
        requests,
        ours,
        dynamic,
        patterns: RUNTIME_DYNAMIC_PATTERNS,
        pins,
      });
      const labels = ["fresh", "resumed"];
      expect(await manifestReport(manifest, PINS, pins, labels)).toBe("");
      const kinds = manifest.blocks.map((b) => b.kind).join("\n");
      expect(kinds).toContain("standing-prompt");
      expect(kinds).toContain("ours: wake-prompt");
      expect(kinds).toContain("earlier-turn:reply");
    } finally {
      await td.stop();
      await api.close();
      await removeDir(dir);
    }
  }, 600_000);
});
