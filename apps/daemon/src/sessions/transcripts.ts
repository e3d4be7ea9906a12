import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DaemonDb } from "../db/schema.ts";

/**
 * A runtime session's transcript as Claude Code keeps it:
 * `<CLAUDE_CONFIG_DIR>/projects/<project dir>/<runtime session id>.jsonl`
 * (packages/claude-cli/WIRE-NOTES.md). The database owns it: stored after each successful
 * turn, written back before a resume on whichever daemon runs the turn, so a conversation is
 * not tied to the machine that ran its last turn.
 */
export interface RuntimeTranscript {
  readonly projectDir: string;
  readonly content: string;
}

/** Session ids are UUIDs; nothing else may become part of a path. */
const SESSION_ID = /^[0-9a-f-]{8,64}$/i;
const PROJECT_DIR = /^[^/\\\0]+$/;

/**
 * The transcript the runtime wrote for a session, or null when there is none. The lookup is
 * by id across project folders, as the CLI's own resume does.
 */
export async function readRuntimeTranscript(
  claudeConfigDir: string,
  runtimeSessionId: string,
): Promise<RuntimeTranscript | null> {
  if (!SESSION_ID.test(runtimeSessionId)) return null;
  const projects = join(claudeConfigDir, "projects");
  const dirs = await readdir(projects).catch(() => [] as string[]);
  for (const projectDir of dirs) {
    const content = await readFile(
      join(projects, projectDir, `${runtimeSessionId}.jsonl`),
      "utf8",
    ).catch(() => null);
    if (content !== null) return { projectDir, content };
  }
  return null;
}

/**
 * Writes the stored transcript of a session where the runtime looks for it, replacing
 * whatever this machine has (a copy from an older turn, or a failed turn's branch): the
 * database's copy is the session. Atomic (a temporary file renamed over the old one), so a
 * runtime never reads half a file. Nothing stored: nothing written.
 */
export async function materialiseTranscript(
  db: DaemonDb,
  claudeConfigDir: string,
  sessionId: string,
): Promise<boolean> {
  const stored = await db
    .selectFrom("session_transcripts")
    .select(["runtime_session_id", "project_dir", "content"])
    .where("session_id", "=", sessionId)
    .executeTakeFirst();
  if (
    stored === undefined ||
    !SESSION_ID.test(stored.runtime_session_id) ||
    !PROJECT_DIR.test(stored.project_dir) ||
    stored.project_dir === "." ||
    stored.project_dir === ".."
  ) {
    return false;
  }
  const dir = join(claudeConfigDir, "projects", stored.project_dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, `${stored.runtime_session_id}.jsonl`);
  const temporary = `${target}.${randomUUID()}.tmp`;
  await writeFile(temporary, stored.content, { mode: 0o600 });
  await rename(temporary, target);
  return true;
}
