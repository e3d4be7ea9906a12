// Prepare-spawn benchmark: database read → privacy projection → render → compare →
// atomic write-if-changed, on the embedded database (PGlite), as every turn does before its
// spawn. Prints a Markdown report for BENCHMARKS.md.
//   pnpm --filter @talkide/be run bench
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { prepareSpawnContext, type ContextLayout } from "../context/prepare.ts";
import { writeFileIfChanged } from "../context/write-if-changed.ts";
import { openDatabase } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { insertMember } from "../domain/members.ts";
import { requireMembership } from "../domain/membership.ts";
import { createProject } from "../domain/projects.ts";
import { createUser } from "../domain/users.ts";

const WARMUP = 50;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 1000);
const MEMBERS = 5;

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

function filesystemOf(dir: string): string {
  try {
    return (
      execFileSync("df", ["-T", dir], { encoding: "utf8" })
        .trim()
        .split("\n")[1]
        ?.split(/\s+/)[1] ?? "unknown"
    );
  } catch {
    return "unknown";
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-bench-"));
// The embedded database by default; a PostgreSQL server (an empty database) when DATABASE_URL is set.
const databaseUrl = process.env.DATABASE_URL ?? null;
const database = await openDatabase({ databaseUrl, dataDir });
try {
  const db = database.db;
  await migrateToLatest(db);
  const users = [];
  for (let i = 0; i < MEMBERS; i += 1) {
    users.push(
      await createUser(db, { email: `member${i}@example.com`, displayName: `Member ${i}` }),
    );
  }
  const owner = users[0];
  if (owner === undefined) throw new Error("no users");
  const project = await createProject(db, {
    userId: owner.user.id,
    workspacesDir: join(dataDir, "workspaces"),
    input: {
      name: "Pekárna u Jelena",
      description: "E-shop pro malou pekárnu: objednávky, rozvoz, věrnostní program.",
      member: {
        salutation: "Member0",
        teamBriefing: "Preferuji Pinia.\nTesty piš ve Vitestu.\n".repeat(5),
      },
    },
  });
  const ownerMembership = await requireMembership(db, project.id, owner.user.id);
  for (const [i, user] of users.slice(1).entries()) {
    await db.transaction().execute((trx) =>
      insertMember(trx, ownerMembership, user.user.id, {
        salutation: `Member${i + 1}`,
        teamBriefing: "Piš stručně; API navrhuj REST-first.\n".repeat(5),
      }),
    );
  }
  const memberIds = await Promise.all(
    users.map(async (u) => (await requireMembership(db, project.id, u.user.id)).memberId),
  );

  async function measure(
    layout: ContextLayout,
    changing: boolean,
  ): Promise<{ p50: number; p99: number; max: number; wrote: number }> {
    const samples: number[] = [];
    let wrote = 0;
    for (let i = 0; i < WARMUP + ITERATIONS; i += 1) {
      // Changed state: the writer alternates, so the writer section differs every time.
      const writer = changing ? memberIds[i % 2] : memberIds[0];
      if (writer === undefined) throw new Error("no member");
      const started = performance.now();
      const prepared = await prepareSpawnContext(db, {
        projectId: project.id,
        activeMemberId: writer,
        layout,
      });
      const elapsed = performance.now() - started;
      if (i >= WARMUP) {
        samples.push(elapsed);
        wrote += prepared.files.filter((f) => f.changed).length;
      }
    }
    samples.sort((a, b) => a - b);
    return {
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      max: samples.at(-1) ?? Number.NaN,
      wrote,
    };
  }

  const rows: string[] = [];
  for (const layout of ["split", "single"] as const) {
    // Settle the files first so "unchanged" really starts from equal bytes.
    await prepareSpawnContext(db, {
      projectId: project.id,
      activeMemberId: memberIds[0] ?? "",
      layout,
    });
    for (const changing of [false, true]) {
      const r = await measure(layout, changing);
      rows.push(
        `| ${layout} | ${changing ? "changed (writer alternates)" : "unchanged"} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(2)} | ${r.wrote} |`,
      );
    }
  }
  // The file system's share: the same atomic write (temporary file, fsync, rename) alone.
  const alone: number[] = [];
  const target = join(dataDir, "alone", "active-writer.md");
  for (let i = 0; i < WARMUP + ITERATIONS; i += 1) {
    const started = performance.now();
    await writeFileIfChanged(target, `# Aktuálně píše\nMember${i % 2}\n`);
    if (i >= WARMUP) alone.push(performance.now() - started);
  }
  alone.sort((a, b) => a - b);
  rows.push(
    `| (write only) | one small file, atomic write with fsync | ${percentile(alone, 50).toFixed(2)} | ${percentile(alone, 99).toFixed(2)} | ${(alone.at(-1) ?? Number.NaN).toFixed(2)} | ${ITERATIONS} |`,
  );
  const cpu = cpus();
  console.log(
    [
      `Machine: ${cpu[0]?.model ?? "unknown CPU"} (${cpu.length} cores visible), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${platform()} ${release()}, Node ${process.version}; files on ${filesystemOf(dataDir)}, fsync on.`,
      `Load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(", ")} (the machine is shared).`,
      `Database: ${databaseUrl === null ? "embedded (PGlite)" : "PostgreSQL server (DATABASE_URL)"}.`,
      `Team of ${MEMBERS} members, ${ITERATIONS} measured iterations per row after ${WARMUP} warm-up ones.`,
      "",
      "| layout | state | p50 (ms) | p99 (ms) | max (ms) | files written |",
      "|---|---|---:|---:|---:|---:|",
      ...rows,
    ].join("\n"),
  );
} finally {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
