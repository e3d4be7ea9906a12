// Fair share of turn slots (issue 49, finding 4): one user sends 8 slow turns in 8 projects,
// then another user sends one turn. How long does the second user's turn wait for a slot, with
// no limit per owner (TALKIDE_OWNER_TURN_SHARE=100, the behaviour before) and with the default
// 50%? Every turn runs the fake `claude`, slow (BENCH_SLOW_MS, default 10 s). Prints a Markdown
// report for BENCHMARKS.md.
//   node --conditions=@talkide/source src/bench/fair-share.bench.ts
import { cpus, loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { api, defaultProject, startHarness, type Harness } from "../test-support/harness.ts";

const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 10_000);
const FIRST_USERS_TURNS = 8;

interface Row {
  readonly share: number;
  /** The second user's turn: message accepted → its `claude` started (the turn's startedAt). */
  readonly waitMs: number;
  /** The first user's turns running when the second user's started. */
  readonly firstUsersRunning: number;
  /** The first user's 8 turns: first accepted → last finished. */
  readonly firstUsersMakespanMs: number;
}

async function turnTimes(
  harness: Harness,
  projectId: number,
): Promise<{ created: number; started: number | null; finished: number | null }> {
  const { rows } = await sql<{
    created_at: string;
    started_at: string | null;
    finished_at: string | null;
  }>`SELECT created_at::text, started_at::text, finished_at::text FROM turns
     WHERE project_id = ${projectId}`.execute(harness.service.database.db);
  const row = rows[0];
  if (row === undefined) throw new Error(`no turn in project ${projectId}`);
  const at = (value: string | null): number | null => (value === null ? null : Date.parse(value));
  return {
    created: at(row.created_at) ?? 0,
    started: at(row.started_at),
    finished: at(row.finished_at),
  };
}

async function scenario(share: number): Promise<Row> {
  const harness = await startHarness({
    env: { TALKIDE_OWNER_TURN_SHARE: String(share), TALKIDE_LOG_LEVEL: "warn" },
    claudeEnv: { FAKE_CLAUDE_SCENARIO: "slow", FAKE_CLAUDE_DELAY_MS: String(SLOW_MS) },
  });
  try {
    const first = await harness.createUser({ email: "first@example.com", displayName: "First" });
    const second = await harness.createUser({ email: "second@example.com", displayName: "Second" });
    const create = async (token: string): Promise<number> =>
      (
        await api<{ project: { id: number } }>(
          harness,
          token,
          "POST",
          "/v1/projects",
          defaultProject,
        )
      ).body.project.id;
    const firsts: number[] = [];
    for (let i = 0; i < FIRST_USERS_TURNS; i += 1) firsts.push(await create(first.token));
    const secondsProject = await create(second.token);
    for (const id of firsts) {
      await api(harness, first.token, "POST", `/v1/projects/${id}/messages`, { text: "Pomalu" });
    }
    // The first user's turns have taken what they may.
    await sleep(500);
    await api(harness, second.token, "POST", `/v1/projects/${secondsProject}/messages`, {
      text: "Ahoj",
    });
    let seconds = await turnTimes(harness, secondsProject);
    while (seconds.started === null) {
      await sleep(20);
      seconds = await turnTimes(harness, secondsProject);
    }
    const startedAt = seconds.started;
    const firstTimes = await Promise.all(firsts.map((id) => turnTimes(harness, id)));
    const firstUsersRunning = firstTimes.filter(
      (t) => t.started !== null && t.started <= startedAt && (t.finished ?? Infinity) > startedAt,
    ).length;
    let all = firstTimes;
    while (all.some((t) => t.finished === null)) {
      await sleep(100);
      all = await Promise.all(firsts.map((id) => turnTimes(harness, id)));
    }
    const makespan =
      Math.max(...all.map((t) => t.finished ?? 0)) - Math.min(...all.map((t) => t.created));
    return {
      share,
      waitMs: startedAt - seconds.created,
      firstUsersRunning,
      firstUsersMakespanMs: makespan,
    };
  } finally {
    await harness.close();
  }
}

const rows: Row[] = [];
for (const share of [100, 50]) rows.push(await scenario(share));
console.log(
  `- ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; each turn of the fake \`claude\` takes ${SLOW_MS / 1000} s, 8 slots per instance`,
);
console.log("");
console.log(
  "| `TALKIDE_OWNER_TURN_SHARE` | second user's turn waits | first user's turns running then | first user's 8 turns take |",
);
console.log("| --- | ---: | ---: | ---: |");
for (const row of rows) {
  console.log(
    `| ${row.share}%${row.share === 100 ? " (no limit: before)" : " (default: after)"} | ${(row.waitMs / 1000).toFixed(2)} s | ${row.firstUsersRunning} | ${(row.firstUsersMakespanMs / 1000).toFixed(1)} s |`,
  );
}
