import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/**
 * Instruction files (CLAUDE.local.md, AGENTS.md, `.claude/…`, a CLAUDE.md in a subfolder) that
 * were found in a project's workspace before a spawn and that the backend did not render: they
 * are moved here (issue 49) so that no member's text shapes another member's turns, and the
 * project's owners review them in "What Mara sees".
 */
export function projectQuarantineDir(root: string, projectId: number): string {
  return join(root, `project-${projectId}`);
}

export interface QuarantinedFile {
  /** When it was moved: the name of its folder, an ISO time stamp with `-` for `:` and `.`. */
  readonly movedAt: string;
  /** Its path in the workspace. */
  readonly path: string;
  readonly bytes: number;
  /** The text (UTF-8, at most {@link SHOWN_BYTES}); null for a link, binary or a larger file. */
  readonly content: string | null;
}

const SHOWN_BYTES = 64 * 1024;
const LISTED_FILES = 200;

/** The project's quarantined files, newest move first; none when nothing was ever moved. */
export async function listQuarantined(root: string, projectId: number): Promise<QuarantinedFile[]> {
  const dir = projectQuarantineDir(root, projectId);
  const folders = (await readdir(dir).catch(() => [])).sort().reverse();
  const listed: QuarantinedFile[] = [];
  for (const folder of folders) {
    const movedAt = folder.replace(
      /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z-.*$/,
      "$1:$2:$3.$4Z",
    );
    for (const path of await filesUnder(join(dir, folder))) {
      if (listed.length >= LISTED_FILES) return listed;
      const absolute = join(dir, folder, path);
      const info = await lstat(absolute);
      let content: string | null = null;
      if (info.isFile() && info.size <= SHOWN_BYTES) {
        const text = (await readFile(absolute)).toString("utf8");
        content = text.includes("\uFFFD") || text.includes("\0") ? null : text;
      }
      listed.push({ movedAt, path, bytes: info.size, content });
    }
  }
  return listed;
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}
