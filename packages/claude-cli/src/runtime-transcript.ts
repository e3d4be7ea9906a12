/**
 * A session's transcript as Claude Code keeps it on disk:
 * `<CLAUDE_CONFIG_DIR>/projects/<project folder>/<session id>.jsonl` (WIRE-NOTES.md). A resume
 * reads nothing else of the conversation, so a service that stores this file after each
 * successful turn and writes it back before the next resume owns the session, whichever
 * machine runs the next turn.
 */
import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";

export interface RuntimeTranscript {
  /** The session id the CLI reported (the file's name without `.jsonl`). */
  readonly sessionId: string;
  /** The folder under `<CLAUDE_CONFIG_DIR>/projects` the CLI wrote it to (from the cwd). */
  readonly projectDir: string;
  /** The complete JSON lines, exactly as the CLI wrote them. */
  readonly content: string;
}

/** Session ids are UUIDs; nothing else may become part of a path. */
const SESSION_ID = /^[0-9a-f-]{8,64}$/i;

function isSafeProjectDir(name: string): boolean {
  return /^[^/\\\0]+$/.test(name) && name !== "." && name !== "..";
}

/**
 * The transcript the CLI wrote for a session, or null when there is none (or the id is not a
 * session id). Looked up by id across project folders, as the CLI's own resume does. Only
 * complete lines: a kept-alive CLI may still be appending (it writes some lines after its
 * `result` event), and half a line would make the stored copy unreadable.
 */
export async function readRuntimeTranscript(
  claudeConfigDir: string,
  sessionId: string,
): Promise<RuntimeTranscript | null> {
  if (!SESSION_ID.test(sessionId)) return null;
  const projects = join(claudeConfigDir, "projects");
  const folders = await readdir(projects).catch(() => [] as string[]);
  for (const projectDir of folders.sort()) {
    const content = await readFile(join(projects, projectDir, `${sessionId}.jsonl`), "utf8").catch(
      () => null,
    );
    if (content !== null) {
      return { sessionId, projectDir, content: content.slice(0, content.lastIndexOf("\n") + 1) };
    }
  }
  return null;
}

/**
 * Writes a stored transcript where the CLI looks for it, replacing whatever this machine has
 * (an older copy, or what a failed turn appended): the stored copy is the session. Atomic, so
 * a CLI never reads half a file. Refuses (returns false) a transcript whose names could
 * escape the config directory.
 */
export async function writeRuntimeTranscript(
  claudeConfigDir: string,
  transcript: RuntimeTranscript,
): Promise<boolean> {
  if (!SESSION_ID.test(transcript.sessionId) || !isSafeProjectDir(transcript.projectDir)) {
    return false;
  }
  const folder = join(claudeConfigDir, "projects", transcript.projectDir);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(folder, `${transcript.sessionId}.jsonl`), transcript.content, {
    mode: 0o600,
  });
  return true;
}
