import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  classifyRequests,
  manifestReport,
  readPins,
  RUNTIME_DYNAMIC_PATTERNS,
  REAL_CLAUDE_VERSION,
  type OurText,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { buildMemberMessage } from "@talkide/prompts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MARA_PROMPT,
  startWireBench,
  realClaudeCanRun,
  type WireBench,
} from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be wire manifest suite");

/**
 * Contract section 6: every block of every request of Mara's turns is the runtime's own fixed
 * text (pinned here by sha256 and length for the pinned CLI version, never stored as text),
 * our rendered files, Mara's agent file, the member's message, or the session's earlier
 * successful turns. An unknown block fails with a report of what it was and where it stood.
 * After a CLI upgrade (or a change of the runtime text we make it send): re-pin both apps with
 * `sh scripts/toolchain.sh pnpm run wire:repin` (scripts/wire-repin.ts: removes the old pin
 * files, pins under TALKIDE_WIRE_PINS_UPDATE=1, checks again) and read the blocks it pinned:
 * every one must be the runtime's own text.
 */
const PINS = join(import.meta.dirname, `wire-manifest.claude-${REAL_CLAUDE_VERSION}.json`);
const REPLY = "Mara odpovídá: rozumím, pojďme na to.";

/**
 * Parts of the runtime's text that differ by machine or session, and the plugin's own agent
 * lines (ours: the plugin's agent descriptions, however many agents it ships).
 */
const RUNTIME_PATTERNS = [
  ...RUNTIME_DYNAMIC_PATTERNS,
  { marker: "plugin-agents", pattern: /(?:^- talkide:[^\n]*\n)+/gmu, ours: true },
];

describe.skipIf(!canRun)("at the wire: every block of a backend turn is accounted for", () => {
  let bench: WireBench;
  beforeAll(async () => {
    bench = await startWireBench("split");
    bench.fake.setReply({ text: REPLY });
  });
  afterAll(async () => {
    await bench.close();
  });

  it("classifies a first turn, a resumed turn and a turn after a change of writer", async () => {
    const project = await bench.newProject();
    const filesNow = async (): Promise<OurText[]> => [
      {
        label: "file:CLAUDE.md",
        embedded: true,
        text: (await readFile(join(project.workspaceDir, "CLAUDE.md"), "utf8")).trimEnd(),
      },
      {
        label: "file:.talkide/active-writer.md",
        embedded: true,
        text: (
          await readFile(join(project.workspaceDir, ".talkide", "active-writer.md"), "utf8")
        ).trimEnd(),
      },
    ];
    const messages = ["První zpráva Maře", "Druhá zpráva Maře", "Bob píše poprvé"];
    const requests: RecordedRequest[] = [];
    const files: OurText[][] = [];
    requests.push(await bench.turn(bench.anna, project.id, messages[0] ?? "", "first"));
    files.push(await filesNow());
    requests.push(await bench.turn(bench.anna, project.id, messages[1] ?? "", "resumed"));
    files.push(await filesNow());
    requests.push(await bench.turn(bench.bob, project.id, messages[2] ?? "", "writer changed"));
    files.push(await filesNow());

    const sessionId = requests[0]?.headers["x-claude-code-session-id"] ?? "";
    const ours = (index: number): OurText[] => [
      ...files.slice(0, index + 1).flat(),
      { label: "agent-file", text: MARA_PROMPT },
      // The member message: our fixed first line, then the words (spec/member-message.md).
      { label: "message", text: buildMemberMessage(messages[index] ?? "") },
      ...messages
        .slice(0, index)
        .map((text) => ({ label: "earlier-turn:message", text: buildMemberMessage(text) })),
      ...(index > 0 ? [{ label: "earlier-turn:reply", text: REPLY }] : []),
    ];
    const dynamic = {
      workspace: project.workspaceDir,
      session: sessionId,
      date: new Date().toISOString().slice(0, 10),
    };
    const pins = existsSync(PINS) ? await readPins(PINS) : {};
    const manifest = classifyRequests({
      requests,
      ours,
      dynamic,
      patterns: RUNTIME_PATTERNS,
      pins,
    });
    expect(await manifestReport(manifest, PINS, pins, ["first", "resumed", "writer changed"])).toBe(
      "",
    );
    // What is ours arrived as ours: the files, the agent file and each message.
    const kinds = manifest.blocks.map((b) => b.kind).join("\n");
    expect(kinds).toContain("file:CLAUDE.md");
    expect(kinds).toContain("agent-file");
    expect(kinds).toContain("message");
    expect(kinds).toContain("earlier-turn:reply");
  });
});
