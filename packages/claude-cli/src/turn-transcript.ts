/**
 * Reading a session's transcript after a turn without reading the whole conversation again.
 *
 * Claude Code only appends to a session's file (it opens it for appending; WIRE-NOTES.md). So
 * after the first read, a service keeps a cursor: the byte offset it read up to, the file's
 * identity (device and inode), the last bytes before the offset, and the running sha256 of
 * everything before it. The next turn reads from just before the offset to the end: when the
 * file is still the same file, no shorter, and the bytes before the offset are still the ones
 * it read, the text after the offset is what the turn appended, and the whole transcript's
 * digest is the running one continued over it. The cost is the turn's own lines, whatever the
 * conversation's length. Anything else (another file at the path, a shorter file, changed
 * bytes before the offset) reads the whole file as before, and the store compares it with
 * what it holds (`planTranscriptWrite`). Why the check is enough: the package README,
 * "Reading only what a turn appended".
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import {
  planTranscriptWrite,
  type RuntimeTranscript,
  type TranscriptMark,
} from "./runtime-transcript.ts";

/**
 * Bytes before the offset that must be unchanged. The stored content ends with a newline, so
 * this always covers the end of the last line read; 4 KiB is one page, read in the same call
 * as the appended lines.
 */
export const CURSOR_TAIL_BYTES = 4096;

/** Where a read of a session's transcript file ended, so the next read starts there. */
export interface TranscriptCursor {
  /** The transcript up to `bytes`: session, folder, length (UTF-16) and sha256. */
  readonly mark: TranscriptMark;
  /** The offset read up to, in bytes of the file: the end of its last complete line. */
  readonly bytes: number;
  /** The file that was read (a file put in its place by rename is another inode). */
  readonly dev: number;
  readonly ino: number;
  /** The last `CURSOR_TAIL_BYTES` (or fewer) bytes before `bytes`. */
  readonly tail: Buffer;
  /** sha256 over the content before `bytes`, not yet digested (continue it with `copy()`). */
  readonly hash: Hash;
}

/** A session's transcript as read after a turn. */
export interface TurnTranscript {
  readonly sessionId: string;
  readonly projectDir: string;
  /** The whole transcript's mark (what a store keeps beside it). */
  readonly mark: TranscriptMark;
  /**
   * When only what the turn appended was read: the text after the transcript `since` (the
   * cursor's), complete lines. Null when the whole file was read.
   */
  readonly appended: { readonly since: TranscriptMark; readonly delta: string } | null;
  /**
   * The whole transcript: what was read, or (after an appended read) the file's bytes up to
   * the new offset, read now. Only a store that cannot append calls it.
   */
  whole(): RuntimeTranscript;
  /** Where this read ended, for the next one; null when the file's identity was not known. */
  readonly cursor: TranscriptCursor | null;
}

/** Session ids are UUIDs; nothing else may become part of a path. */
const SESSION_ID = /^[0-9a-f-]{8,64}$/i;
const NEWLINE = 0x0a;

/**
 * The session's transcript after a turn: only what was appended since `cursor`, when the file
 * provably only grew from there; else the whole file (looked for in `knownProjectDir` first,
 * then in every project folder, as the CLI's own resume does). Null when there is none.
 * Synchronous reads on purpose (see readRuntimeTranscript).
 */
export function readTurnTranscript(
  claudeConfigDir: string,
  sessionId: string,
  cursor: TranscriptCursor | null,
  knownProjectDir: string | null = null,
): Promise<TurnTranscript | null> {
  if (!SESSION_ID.test(sessionId)) return Promise.resolve(null);
  if (cursor !== null && cursor.mark.sessionId === sessionId) {
    const appended = readAppended(claudeConfigDir, cursor);
    if (appended !== null) return Promise.resolve(appended);
  }
  return Promise.resolve(
    readWhole(claudeConfigDir, sessionId, knownProjectDir ?? cursor?.mark.projectDir ?? null),
  );
}

/** A transcript held whole (a test's, or one read without a cursor) as a turn's transcript. */
export function wholeTurnTranscript(transcript: RuntimeTranscript): TurnTranscript {
  return {
    sessionId: transcript.sessionId,
    projectDir: transcript.projectDir,
    mark: planTranscriptWrite(null, transcript).mark,
    appended: null,
    whole: () => transcript,
    cursor: null,
  };
}

/**
 * How to store `transcript` over the stored copy `stored`, as planTranscriptWrite does for a
 * whole one: an append read after exactly `stored` appends its delta without reading the
 * rest; anything else is checked whole.
 */
export function planTurnTranscriptWrite(
  stored: TranscriptMark | null,
  transcript: TurnTranscript,
): { readonly append: string | null; readonly mark: TranscriptMark } {
  const { appended } = transcript;
  if (stored !== null && appended !== null && sameMark(stored, appended.since)) {
    return { append: appended.delta, mark: transcript.mark };
  }
  if (stored === null && appended === null) return { append: null, mark: transcript.mark };
  return planTranscriptWrite(stored, transcript.whole());
}

export function sameMark(a: TranscriptMark, b: TranscriptMark): boolean {
  return (
    a.sessionId === b.sessionId &&
    a.projectDir === b.projectDir &&
    a.length === b.length &&
    a.sha256 === b.sha256
  );
}

function transcriptPath(claudeConfigDir: string, projectDir: string, sessionId: string): string {
  return join(claudeConfigDir, "projects", projectDir, `${sessionId}.jsonl`);
}

/** What the file holds after the cursor, or null when it is not provably the cursor's file grown. */
function readAppended(claudeConfigDir: string, cursor: TranscriptCursor): TurnTranscript | null {
  const { sessionId, projectDir } = cursor.mark;
  const path = transcriptPath(claudeConfigDir, projectDir, sessionId);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  let read: Buffer;
  try {
    const stat = fstatSync(fd);
    if (stat.dev !== cursor.dev || stat.ino !== cursor.ino || stat.size < cursor.bytes) {
      return null;
    }
    const from = cursor.bytes - cursor.tail.length;
    read = readRange(fd, from, stat.size - from);
  } finally {
    closeSync(fd);
  }
  if (
    read.length < cursor.tail.length ||
    !read.subarray(0, cursor.tail.length).equals(cursor.tail)
  ) {
    return null;
  }
  const after = read.subarray(cursor.tail.length);
  const added = after.subarray(0, after.lastIndexOf(NEWLINE) + 1);
  const delta = added.toString("utf8");
  const hash = cursor.hash.copy().update(delta, "utf8");
  const mark: TranscriptMark = {
    sessionId,
    projectDir,
    length: cursor.mark.length + delta.length,
    sha256: hash.copy().digest("hex"),
  };
  const bytes = cursor.bytes + added.length;
  let whole: RuntimeTranscript | undefined;
  const next: TranscriptCursor = {
    mark,
    bytes,
    dev: cursor.dev,
    ino: cursor.ino,
    tail: Buffer.from(
      read.subarray(
        Math.max(0, cursor.tail.length + added.length - CURSOR_TAIL_BYTES),
        cursor.tail.length + added.length,
      ),
    ),
    hash,
  };
  return {
    sessionId,
    projectDir,
    mark,
    appended: { since: cursor.mark, delta },
    whole: () => (whole ??= { sessionId, projectDir, content: readPrefix(path, bytes) }),
    cursor: next,
  };
}

/** The whole file, cut after its last complete line, with a cursor at its end. */
function readWhole(
  claudeConfigDir: string,
  sessionId: string,
  knownProjectDir: string | null,
): TurnTranscript | null {
  const projects = join(claudeConfigDir, "projects");
  // The known folder first, without listing the others: their number does not matter then.
  const first = knownProjectDir !== null && isFolderName(knownProjectDir) ? knownProjectDir : null;
  let found = first === null ? null : readFileWithIdentity(projects, first, sessionId);
  for (const folder of found === null ? readFolders(projects).sort() : []) {
    if (folder === first) continue;
    found = readFileWithIdentity(projects, folder, sessionId);
    if (found !== null) break;
  }
  if (found === null) return null;
  const { projectDir, bytes: file, dev, ino } = found;
  const complete = file.subarray(0, file.lastIndexOf(NEWLINE) + 1);
  const content = complete.toString("utf8");
  const hash = createHash("sha256").update(content, "utf8");
  const mark: TranscriptMark = {
    sessionId,
    projectDir,
    length: content.length,
    sha256: hash.copy().digest("hex"),
  };
  const transcript: RuntimeTranscript = { sessionId, projectDir, content };
  return {
    sessionId,
    projectDir,
    mark,
    appended: null,
    whole: () => transcript,
    cursor: {
      mark,
      bytes: complete.length,
      dev,
      ino,
      tail: Buffer.from(complete.subarray(Math.max(0, complete.length - CURSOR_TAIL_BYTES))),
      hash,
    },
  };
}

function readFileWithIdentity(
  projects: string,
  projectDir: string,
  sessionId: string,
): { projectDir: string; bytes: Buffer; dev: number; ino: number } | null {
  let fd: number;
  try {
    fd = openSync(join(projects, projectDir, `${sessionId}.jsonl`), "r");
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    return { projectDir, bytes: readRange(fd, 0, stat.size), dev: stat.dev, ino: stat.ino };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Up to `length` bytes from `position` (fewer when the file ends first). */
function readRange(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

function readPrefix(path: string, bytes: number): string {
  const fd = openSync(path, "r");
  try {
    return readRange(fd, 0, bytes).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** A name of one folder inside `projects`, never a path out of it. */
function isFolderName(name: string): boolean {
  return /^[^/\\\0]+$/.test(name) && name !== "." && name !== "..";
}

function readFolders(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}
