import { DEMO_MODEL_MARK } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addMember,
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
} from "./test-support/harness.ts";
import { REAL_CLAUDE, realClaudeCanRun } from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be demo-model wire suite");

/**
 * The service as a new user starts it: no ANTHROPIC_API_KEY, so the local demo model answers
 * through the real, pinned Claude Code CLI. Its answers say what Mara received, so a switch of
 * the writer shows in the next answer; every turn is marked `demoModel`.
 */
describe.skipIf(!canRun)("at the wire: the local demo model", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({
      // A blank key is no key: the service starts its local demo model.
      env: { TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "", ANTHROPIC_API_KEY: "" },
    });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("names the active writer, and the new one after a switch; its turns are marked demo", async () => {
    expect(harness.service.demoModel).not.toBeNull();
    const anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna N." });
    const boris = await harness.createUser({ email: "boris@example.com", displayName: "Boris B." });
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    const projectId = created.body.project.id;
    const added = await addMember(harness, anna.token, projectId, {
      email: boris.email,
      salutation: "Boris",
      teamBriefing: "Vue Router 4.",
    });
    expect(added.status).toBe(201);

    const first = terminalEvent((await sendMessage(harness, anna.token, projectId, "Ahoj")).events);
    expect(first.event).toBe("turn.succeeded");
    expect(first.data).toMatchObject({ demoModel: true, costUsd: expect.any(Number) as number });
    const firstAnswer = String(first.data.resultText);
    expect(firstAnswer.startsWith(`${DEMO_MODEL_MARK} `)).toBe(true);
    expect(firstAnswer).toContain("\nProjekt: Pekárna u Jelena\n");
    expect(firstAnswer).toContain("\nPíše teď: Anna\n");
    expect(firstAnswer).toContain("\nTým: Anna, Boris\n");
    expect(firstAnswer).toContain("\nBriefing pro tým (Anna):\n> Preferuji Pinia.\n");
    expect(firstAnswer).toContain(
      "Začátek konverzace: přišly instrukční soubory CLAUDE.md, .talkide/active-writer.md.",
    );
    // Personal data never reaches the model, so the demo model cannot say it either.
    expect(firstAnswer).not.toContain("anna@example.com");

    const second = terminalEvent(
      (await sendMessage(harness, boris.token, projectId, "Teď píšu já")).events,
    );
    expect(second.event).toBe("turn.succeeded");
    const secondAnswer = String(second.data.resultText);
    expect(secondAnswer).toContain("\nPíše teď: Boris (předtím: Anna)\n");
    expect(secondAnswer).toContain("\nBriefing pro tým (Boris):\n> Vue Router 4.\n");
    expect(secondAnswer).toContain(
      "Od minulého tahu: přišly znovu jen změněné soubory .talkide/active-writer.md.",
    );

    const turns = await api<{ turns: Array<{ number: number; demoModel: boolean }> }>(
      harness,
      anna.token,
      "GET",
      `/v1/projects/${projectId}/turns`,
    );
    expect(turns.body.turns.map((t) => [t.number, t.demoModel])).toEqual([
      [2, true],
      [1, true],
    ]);
  });
});
