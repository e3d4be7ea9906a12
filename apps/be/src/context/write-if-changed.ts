import { readFileSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import writeFileAtomic from "write-file-atomic";

export interface WriteHooks {
  /**
   * Called after the temporary file is created and before any byte is written to it. Tests
   * use it to pause a write and kill the process in the middle; production passes nothing.
   */
  readonly beforeWrite?: (targetPath: string) => Promise<void>;
}

function readIfExists(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Writes `content` to `path` only when the bytes on disk differ, and then atomically: the
 * bytes go to a temporary file in the same directory, are flushed (fsync), and the file is
 * renamed over the target. A reader (or a crash) sees the old file or the new one, never a
 * mix; an unchanged file keeps its bytes and its mtime. Returns whether it wrote.
 */
export async function writeFileIfChanged(
  path: string,
  content: string,
  hooks: WriteHooks = {},
): Promise<boolean> {
  const [outcome] = await writeFilesIfChanged([{ path, content }], hooks);
  return outcome?.written === true;
}

/**
 * writeFileIfChanged for several files, such as a turn's context files: what is on disk is
 * read first for all of them, and the ones that differ are written one after the other, in the
 * order given (a reader that sees a later file changed sees the earlier ones changed too).
 * Returns whether each was written, and the bytes it replaced (null: there was no file). The reads are synchronous on purpose: a few small local
 * files read in microseconds, while each asynchronous read takes several rounds through
 * libuv's thread pool (open, stat, read, close) before every turn.
 */
export async function writeFilesIfChanged(
  files: ReadonlyArray<{ readonly path: string; readonly content: string }>,
  hooks: WriteHooks = {},
): Promise<FileWrite[]> {
  const current = files.map((file) => readIfExists(file.path));
  const outcomes: FileWrite[] = [];
  for (const [index, file] of files.entries()) {
    const bytes = Buffer.from(file.content, "utf8");
    const previous = current[index] ?? null;
    if (previous?.equals(bytes) === true) {
      outcomes.push({ written: false, previous });
      continue;
    }
    await writeAtomically(file.path, bytes, hooks);
    outcomes.push({ written: true, previous });
  }
  return outcomes;
}

/** What writeFilesIfChanged did with one file: written or not, and what was there before. */
export interface FileWrite {
  readonly written: boolean;
  readonly previous: Buffer | null;
}

async function writeAtomically(path: string, bytes: Buffer, hooks: WriteHooks): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const beforeWrite = hooks.beforeWrite;
  // write-file-atomic (since v5) awaits `tmpfileCreated`; its community types still declare
  // a void callback, hence the cast.
  const tmpfileCreated =
    beforeWrite === undefined
      ? undefined
      : ((() => beforeWrite(path)) as unknown as (tmpfile: string) => void);
  await writeFileAtomic(path, bytes, {
    fsync: true,
    ...(tmpfileCreated === undefined ? {} : { tmpfileCreated }),
  });
}

/**
 * A process killed between creating its temporary file and renaming it leaves the temporary
 * file behind (`CLAUDE.md.1234567`); the target itself is intact. This removes such leftovers
 * next to the given targets, so the agent never finds them in its workspace.
 */
export async function removeStaleTemporaryFiles(targets: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  const byDir = new Map<string, Set<string>>();
  for (const target of targets) {
    const names = byDir.get(dirname(target)) ?? new Set<string>();
    names.add(basename(target));
    byDir.set(dirname(target), names);
  }
  for (const [dir, names] of byDir) {
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    for (const entry of entries) {
      const dot = entry.lastIndexOf(".");
      if (dot <= 0) continue;
      if (names.has(entry.slice(0, dot)) && /^\d+$/.test(entry.slice(dot + 1))) {
        await rm(join(dir, entry), { force: true });
        removed.push(join(dir, entry));
      }
    }
  }
  return removed;
}
