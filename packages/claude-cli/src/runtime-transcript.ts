/**
 * A session's transcript as Claude Code keeps it on disk:
 * `<CLAUDE_CONFIG_DIR>/projects/<project folder>/<session id>.jsonl` (WIRE-NOTES.md). A resume
 * reads nothing else of the conversation, so a service that stores this file after each
 * successful turn and writes it back before the next resume owns the session, whichever
 * machine runs the next turn.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
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
export function readRuntimeTranscript(
  claudeConfigDir: string,
  sessionId: string,
  /** The folder the session's transcript was found in last time: looked in first. */
  knownProjectDir?: string | null,
): Promise<RuntimeTranscript | null> {
  if (!SESSION_ID.test(sessionId)) return Promise.resolve(null);
  // Synchronous on purpose: this runs between a turn's result and its answer, and a local read
  // costs less than the rounds an asynchronous one takes through libuv's thread pool (open,
  // stat, read, close, and one failed open per other project folder); a long transcript blocks
  // for about a millisecond per few megabytes.
  const projects = join(claudeConfigDir, "projects");
  const folders = readFolders(projects).sort();
  const first =
    knownProjectDir != null && folders.includes(knownProjectDir) ? [knownProjectDir] : [];
  for (const projectDir of [...first, ...folders.filter((folder) => !first.includes(folder))]) {
    const content = readIfPresent(join(projects, projectDir, `${sessionId}.jsonl`));
    if (content !== null) {
      return Promise.resolve({
        sessionId,
        projectDir,
        content: content.slice(0, content.lastIndexOf("\n") + 1),
      });
    }
  }
  return Promise.resolve(null);
}

function readFolders(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
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

/**
 * What a stored copy of a transcript is, so that a later file can be checked against it: the
 * session and folder, the length (UTF-16 code units, as JavaScript and the JVM count) and the
 * sha256 (hex) of its UTF-8 bytes.
 */
export interface TranscriptMark {
  readonly sessionId: string;
  readonly projectDir: string;
  readonly length: number;
  readonly sha256: string;
}

/**
 * Parts a stored transcript may gather before a service stores it whole again (and drops
 * them), so a resume never reads back a long chain of small rows.
 */
export const MAX_TRANSCRIPT_PARTS = 64;

/**
 * How to store `transcript` over the stored copy `stored` (null: none, or not known). The CLI
 * only appends to a session's file, so a service can store what a turn added instead of the
 * whole file, which grows with the conversation. `append` is that text when the file still
 * begins with exactly the stored copy (same session and folder, same length-prefix digest),
 * else null: store the whole file. `mark` is the new transcript's, to keep with it.
 */
export function planTranscriptWrite(
  stored: TranscriptMark | null,
  transcript: RuntimeTranscript,
): { readonly append: string | null; readonly mark: TranscriptMark } {
  const { content } = transcript;
  const mark = (sha256: string): TranscriptMark => ({
    sessionId: transcript.sessionId,
    projectDir: transcript.projectDir,
    length: content.length,
    sha256,
  });
  if (
    stored === null ||
    stored.sessionId !== transcript.sessionId ||
    stored.projectDir !== transcript.projectDir ||
    content.length < stored.length
  ) {
    return { append: null, mark: mark(createHash("sha256").update(content, "utf8").digest("hex")) };
  }
  // One pass over the content: the stored prefix's digest, then the whole one's.
  const hash = createHash("sha256").update(content.slice(0, stored.length), "utf8");
  const prefix = hash.copy().digest("hex");
  const tail = content.slice(stored.length);
  const whole = mark(hash.update(tail, "utf8").digest("hex"));
  return { append: prefix === stored.sha256 ? tail : null, mark: whole };
}
