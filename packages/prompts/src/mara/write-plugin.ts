/**
 * Writes Mara's plugin directory. Each file is replaced atomically (written beside the target,
 * then renamed over it), so a Claude process starting at the same moment reads either the old
 * or the new file, never half of one; a file whose bytes are already right is not touched.
 */
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { buildMaraPlugin } from "./agent-file.ts";

export interface PluginWriteResult {
  /** Relative path inside the plugin directory. */
  readonly path: string;
  readonly status: "written" | "unchanged";
}

async function currentBytes(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Writes the plugin into `directory` (created if needed) and says what changed. */
export async function writeMaraPlugin(directory: string): Promise<readonly PluginWriteResult[]> {
  const results: PluginWriteResult[] = [];
  for (const file of buildMaraPlugin()) {
    const target = join(directory, ...file.path.split("/"));
    const wanted = Buffer.from(file.content, "utf8");
    const current = await currentBytes(target);
    if (current !== null && current.equals(wanted)) {
      results.push({ path: file.path, status: "unchanged" });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(target, wanted);
    results.push({ path: file.path, status: "written" });
  }
  return results;
}
