import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { failure, type ClaudeTurnFailure } from "./turn-result.ts";

// The checks before the spawn and the failure of the spawn itself, each with a message that
// says what to do.

export async function checkBeforeSpawn(
  executable: string,
  cwd: string,
): Promise<ClaudeTurnFailure | null> {
  const cwdStat = await stat(cwd).catch(() => null);
  if (cwdStat === null || !cwdStat.isDirectory()) {
    return failure(
      "spawn_failed",
      `The working directory ${JSON.stringify(cwd)} does not exist or is not a directory; create it before starting a turn.`,
    );
  }
  if (!isAbsolute(executable)) return null; // a bare name: the spawn looks it up on PATH
  const binaryStat = await stat(executable).catch(() => null);
  if (binaryStat === null) {
    return failure(
      "binary_missing",
      `Claude Code was not found at ${JSON.stringify(executable)}. Install @anthropic-ai/claude-code or configure the path of the claude binary.`,
    );
  }
  const executableFile =
    binaryStat.isFile() &&
    (await access(executable, constants.X_OK).then(
      () => true,
      () => false,
    ));
  if (!executableFile) {
    return failure(
      "binary_missing",
      `${JSON.stringify(executable)} is not an executable file. Point the claude path at the Claude Code binary (or chmod +x it).`,
    );
  }
  return null;
}

export function spawnFailure(executable: string, error: unknown): ClaudeTurnFailure {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "ENOENT" || code === "EACCES") {
    return failure(
      "binary_missing",
      `Claude Code could not be executed as ${JSON.stringify(executable)} (${code}). Install @anthropic-ai/claude-code or configure the path of the claude binary.`,
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return failure("spawn_failed", `Claude Code could not be started: ${detail}.`);
}
