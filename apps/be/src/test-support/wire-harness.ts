import {
  lastUserPrompt,
  newInstructionReminders,
  realClaudeSuiteCanRun,
  startFakeMessagesApi,
  type FakeMessagesApi,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { buildMemberMessage, renderMaraAgentFile } from "@talkide/prompts";
import { findBundledClaudePath } from "@talkide/claude-cli";
import type { ContextLayout } from "../context/prepare.ts";
import {
  addMember,
  api,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "./harness.ts";

/**
 * The service spawning the real Claude Code CLI (the pinned @anthropic-ai/claude-code)
 * exactly as in production, against a fake Messages API on loopback that records every
 * request body.
 */
export const REAL_CLAUDE = findBundledClaudePath(import.meta.url);

/** Whether a suite driving the real CLI can run: skipped loudly locally, a failure under CI=true. */
export function realClaudeCanRun(suite: string): boolean {
  return realClaudeSuiteCanRun(suite, REAL_CLAUDE);
}

/** Mara's prompt as her agent file carries it, without the YAML front matter. */
export const MARA_PROMPT = renderMaraAgentFile()
  .replace(/^---\n[\s\S]*?\n---\n/, "")
  .trim();

export const WIRE_PERSONAL_DATA = {
  anna: {
    email: "anna.wire@example.org",
    displayName: "Anna Wirecanary",
    phone: "+420 601 111 222",
  },
  bob: { email: "bob.wire@example.org", displayName: "Bob Wirecanary", phone: "+420 602 333 444" },
} as const;

export interface WireBench {
  readonly fake: FakeMessagesApi;
  readonly harness: Harness;
  readonly anna: TestUser;
  readonly bob: TestUser;
  newProject(): Promise<{ id: number; workspaceDir: string }>;
  /** Sends a message and returns the turn's model call (the request carrying the message). */
  turn(user: TestUser, projectId: number, message: string, label: string): Promise<RecordedRequest>;
  /**
   * What the service recorded at prepare-spawn time for the project's latest turn: the bytes
   * it predicts the changed instruction files add to a resumed request.
   */
  recordedReminderBytes(projectId: number): Promise<number | null>;
  /** Per turn: the bytes of the instruction reminders it added, and the request's size. */
  readonly measurements: Array<{ turn: string; reminderBytes: number; bodyBytes: number }>;
  close(): Promise<void>;
}

/** `env`: more of the service's variables (e.g. `TALKIDE_PROMPT_CACHE_TTL`). */
export async function startWireBench(
  layout: ContextLayout,
  env: Readonly<Record<string, string>> = {},
): Promise<WireBench> {
  const fake = await startFakeMessagesApi();
  const harness = await startHarness({
    env: {
      TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "",
      ANTHROPIC_BASE_URL: fake.url,
      TALKIDE_CONTEXT_LAYOUT: layout,
      ...env,
    },
  });
  // Personal data that must never reach the model provider (checked by the wire suite).
  const anna = await harness.createUser(WIRE_PERSONAL_DATA.anna);
  const bob = await harness.createUser(WIRE_PERSONAL_DATA.bob);
  const measurements: WireBench["measurements"] = [];
  return {
    fake,
    harness,
    anna,
    bob,
    measurements,
    async newProject() {
      const created = await api<{ project: { id: number; workspaceDir: string } }>(
        harness,
        anna.token,
        "POST",
        "/v1/projects",
        {
          name: "Pekárna u Jelena",
          description: "E-shop pro malou pekárnu",
          member: { salutation: "Anna", teamBriefing: "Preferuji Pinia." },
        },
      );
      await addMember(harness, anna.token, created.body.project.id, {
        email: WIRE_PERSONAL_DATA.bob.email,
        salutation: "Bob",
        teamBriefing: "Vue Router 4.",
      });
      return created.body.project;
    },
    async recordedReminderBytes(projectId) {
      const turns = await api<{
        turns: Array<{ context: { resumeReminderBytes: number | null } }>;
      }>(harness, anna.token, "GET", `/v1/projects/${projectId}/turns?limit=1`);
      return turns.body.turns[0]?.context.resumeReminderBytes ?? null;
    },
    async turn(user, projectId, message, label) {
      const result = await sendMessage(harness, user.token, projectId, message);
      const done = terminalEvent(result.events);
      if (done.event !== "turn.succeeded")
        throw new Error(`turn failed: ${JSON.stringify(done.data)}`);
      const request = fake
        .messageRequests()
        // The backend sends the member's words after its fixed line, import-safe (README).
        .filter((r) => lastUserPrompt(r) === buildMemberMessage(message))
        .at(-1);
      if (request === undefined) throw new Error(`no model request carried the message ${message}`);
      measurements.push({
        turn: label,
        reminderBytes: newInstructionReminders(request).reduce((sum, r) => sum + r.bytes, 0),
        bodyBytes: request.bodyBytes,
      });
      return request;
    },
    async close() {
      if (process.env.TALKIDE_WIRE_REPORT === "1") {
        console.log(
          [
            `${layout} layout`,
            "| turn | instruction-reminder bytes added | request body bytes |",
            "|---|---:|---:|",
          ]
            .concat(measurements.map((m) => `| ${m.turn} | ${m.reminderBytes} | ${m.bodyBytes} |`))
            .join("\n"),
        );
      }
      await harness.close();
      await fake.close();
    },
  };
}
