import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  lastUserPrompt,
  startFakeMessagesApi,
  type FakeMessagesApi,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { buildMemberMessage } from "@talkide/prompts";
import { waitFor } from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  defaultProject,
  freshPostgresDatabase,
  postgresAvailable,
  startHarness,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import { REAL_CLAUDE, realClaudeCanRun } from "../test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be multi-instance wire suite");

interface TurnRecord {
  id: string;
  number: number;
  status: string;
  message: string;
  sessionId: string | null;
  sessionReset: string | null;
  resumed: boolean;
  error: { code: string } | null;
  startedAt: string | null;
  finishedAt: string | null;
}

const PROJECTS = 3;
const MESSAGES = 30;
const message = (project: number, k: number): string => `Zpráva p${project}-${k}`;
const answer = (project: number, k: number): string => `Odpověď p${project}-${k}.`;

/** The conversation as the model saw it: the request's messages, as JSON text. */
function conversationOf(request: RecordedRequest): string {
  return JSON.stringify((request.body as { messages?: unknown }).messages ?? []);
}

/**
 * Three backend instances on one PostgreSQL server, each with its own Claude Code config dir
 * (as on three machines; only the workspaces directory is shared), the real CLI against a
 * stand-in Messages API: 30 messages to three projects spread over the instances, a fourth
 * instance started while turns run, and halfway every instance that ran a project's latest
 * turn stops. From the turn records: one turn per project at a time, FIFO. At the wire: every
 * earlier exchange of the project in each turn's request, whichever instance ran the turn
 * before.
 */
describe.skipIf(!canRun || !postgresAvailable())(
  "three backend instances with the real Claude Code CLI",
  () => {
    const shared = mkdtempSync(join(tmpdir(), "talkide-be-instances-wire-"));
    const instances: Harness[] = [];
    let fake: FakeMessagesApi;
    let anna: TestUser;
    let dropDatabase: () => Promise<void>;
    let databaseUrl: string;

    const startInstance = async (): Promise<Harness> => {
      const instance = await startHarness({
        databaseUrl,
        env: {
          TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "",
          ANTHROPIC_BASE_URL: fake.url,
          TALKIDE_WORKSPACES_DIR: join(shared, "workspaces"),
          TALKIDE_TURN_QUEUE_LIMIT: String(MESSAGES),
        },
      });
      instances.push(instance);
      return instance;
    };

    beforeAll(async () => {
      const database = await freshPostgresDatabase();
      databaseUrl = database.url;
      dropDatabase = () => database.dispose();
      fake = await startFakeMessagesApi({
        reply: (request) => {
          const asked = /Zpráva p(\d)-(\d+)/.exec(lastUserPrompt(request) ?? "");
          return { text: asked === null ? "Done." : answer(Number(asked[1]), Number(asked[2])) };
        },
      });
      for (let i = 0; i < 3; i += 1) await startInstance();
      anna = await (instances[0] as Harness).createUser({
        email: "anna@example.com",
        displayName: "Anna",
      });
    });
    afterAll(async () => {
      for (const instance of instances) await instance.close();
      await fake.close();
      await dropDatabase();
      rmSync(shared, { recursive: true, force: true });
    });

    /** The instance the test reads through (one that stays up). */
    let reader: Harness;
    const turnsOf = async (projectId: number): Promise<TurnRecord[]> =>
      (
        await api<{ turns: TurnRecord[] }>(
          reader,
          anna.token,
          "GET",
          `/v1/projects/${projectId}/turns?limit=100`,
        )
      ).body.turns;

    /** Which instance ran each turn, from the instances' logs (kept after a stop). */
    const ranOnFromLogs = (): Map<string, number> => {
      const ranOn = new Map<string, number>();
      instances.forEach((instance, index) => {
        for (const line of instance.logs) {
          const parsed = JSON.parse(line) as { msg?: string; turnId?: string };
          if (parsed.msg === "turn started" && parsed.turnId !== undefined) {
            ranOn.set(parsed.turnId, index);
          }
        }
      });
      return ranOn;
    };

    it("serialises each project's turns across instances and keeps every exchange of its conversation", async () => {
      const projectIds: number[] = [];
      for (let p = 0; p < PROJECTS; p += 1) {
        const created = await api<{ project: { id: number } }>(
          instances[p % 3] as Harness,
          anna.token,
          "POST",
          "/v1/projects",
          defaultProject,
        );
        projectIds.push(created.body.project.id);
      }
      const send = async (i: number, to: readonly Harness[]): Promise<void> => {
        // Message i goes to project i % 3; a project's consecutive messages reach different instances.
        const p = i % PROJECTS;
        const k = Math.floor(i / PROJECTS);
        const posted = await api(
          to[Math.floor(i / PROJECTS) % to.length] as Harness,
          anna.token,
          "POST",
          `/v1/projects/${projectIds[p]}/messages`,
          { text: message(p, k) },
        );
        expect(posted.status).toBe(202);
      };
      reader = instances[0] as Harness;
      const firstThree = instances.slice(0, 3);
      for (let i = 0; i < MESSAGES / 2; i += 1) await send(i, firstThree);

      // A fourth instance starts while turns of the others run: it touches none of them.
      const live = await waitFor(async () => {
        const running = (await Promise.all(projectIds.map(turnsOf)))
          .flat()
          .filter((t) => t.status === "running");
        return running.length > 0 ? running : null;
      }, "a turn to be running");
      const fourth = await startInstance();
      await waitFor(async () => {
        const turns = (await Promise.all(projectIds.map(turnsOf))).flat();
        return turns.length === MESSAGES / 2 && turns.every((t) => t.finishedAt !== null)
          ? true
          : null;
      }, "the first half to finish");

      // Every instance that ran a project's latest turn stops (and its config dir goes with
      // it): each project's next turn runs on another instance, from the stored transcript.
      const latestRanOn = new Set<number>();
      const ranOnSoFar = ranOnFromLogs();
      for (const projectId of projectIds) {
        const latest = (await turnsOf(projectId)).sort((a, b) => b.number - a.number)[0];
        latestRanOn.add(ranOnSoFar.get(latest?.id ?? "") ?? -1);
      }
      const survivors = instances.filter((_, index) => !latestRanOn.has(index));
      for (const index of latestRanOn) await instances[index]?.close();
      reader = survivors[0] as Harness;
      for (let i = MESSAGES / 2; i < MESSAGES; i += 1) await send(i, survivors);

      const all = await waitFor(async () => {
        const turns = (await Promise.all(projectIds.map(turnsOf))).flat();
        return turns.length === MESSAGES && turns.every((t) => t.finishedAt !== null)
          ? turns
          : null;
      }, "every turn to finish");
      expect(all.filter((t) => t.status !== "succeeded")).toEqual([]);
      for (const turn of live) {
        expect(all.find((t) => t.id === turn.id)?.status).toBe("succeeded");
      }
      expect(fourth.logs.filter((line) => line.includes("abandoned turn"))).toEqual([]);

      const ranOn = ranOnFromLogs();
      let resumedElsewhere = 0;
      const requests = fake.messageRequests();
      for (let p = 0; p < PROJECTS; p += 1) {
        const turns = all
          .filter((t) => t.message.startsWith(`Zpráva p${p}-`))
          .sort((a, b) => a.number - b.number);
        // FIFO: the turns ran in the order the messages were sent ...
        expect(turns.map((t) => t.message)).toEqual(
          Array.from({ length: MESSAGES / PROJECTS }, (_, k) => message(p, k)),
        );
        // ... one at a time (each started after the one before it had finished) ...
        for (let k = 1; k < turns.length; k += 1) {
          expect(Date.parse(turns[k]?.startedAt ?? "")).toBeGreaterThanOrEqual(
            Date.parse(turns[k - 1]?.finishedAt ?? ""),
          );
          if (ranOn.get(turns[k]?.id ?? "") !== ranOn.get(turns[k - 1]?.id ?? "")) {
            resumedElsewhere += 1;
          }
        }
        // ... in one conversation that never started over.
        expect(new Set(turns.map((t) => t.sessionId)).size).toBe(1);
        expect(turns.map((t) => [t.resumed, t.sessionReset])).toEqual(
          turns.map((_, k) => [k > 0, null]),
        );
        // At the wire: the request of turn k carries every earlier exchange, in order.
        for (let k = 1; k < turns.length; k += 1) {
          const request = requests
            .filter((r) => lastUserPrompt(r) === buildMemberMessage(message(p, k)))
            .at(-1);
          expect(request, `the request of ${message(p, k)}`).toBeDefined();
          const seen = conversationOf(request as RecordedRequest);
          let from = 0;
          for (let j = 0; j < k; j += 1) {
            for (const text of [message(p, j), answer(p, j)]) {
              const at = seen.indexOf(text, from);
              expect(at, `${text} in the request of ${message(p, k)}`).toBeGreaterThanOrEqual(0);
              from = at + text.length;
            }
          }
          expect(seen).not.toMatch(new RegExp(`Zpráva p(?!${p}-)`));
        }
      }
      // At least each project's first turn after the stop ran on another instance than the
      // turn before it, which only the stored transcript can resume (each instance has its
      // own config dir).
      expect(resumedElsewhere).toBeGreaterThanOrEqual(PROJECTS);
    });
  },
);
