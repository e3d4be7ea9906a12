import { open } from "node:fs/promises";
import { join, resolve } from "node:path";
import { PortsError } from "../errors.ts";
import {
  decodeProjectYml,
  MAX_PROJECT_YML_BYTES,
  parseProjectYml,
  type ProjectYml,
} from "../project-yml-parse.ts";

/** Where a project's port file lives, relative to the project directory. */
export const PROJECT_YML_PATH = join(".talkide", "project.yml");

export type ProjectFileErrorCode = PortsError["code"] | "file_not_found" | "file_unreadable";

export interface ProjectFileError {
  readonly code: ProjectFileErrorCode;
  readonly path: string;
  readonly message: string;
}

export type ProjectFileResult =
  | { readonly ok: true; readonly file: string; readonly values: ProjectYml }
  | { readonly ok: false; readonly file: string; readonly error: ProjectFileError };

/**
 * Reads and validates `<projectDir>/.talkide/project.yml`: the only place the CLI takes
 * ports from. Never throws for a bad file; the caller reports the error and exits.
 */
export async function loadProjectFile(projectDir: string): Promise<ProjectFileResult> {
  const file = resolve(projectDir, PROJECT_YML_PATH);
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(file, MAX_PROJECT_YML_BYTES + 1);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      return failure(file, "file_not_found", `${file} does not exist.`);
    }
    return failure(file, "file_unreadable", `${file} cannot be read (${code ?? "unknown error"}).`);
  }
  try {
    return { ok: true, file, values: parseProjectYml(decodeProjectYml(bytes)) };
  } catch (error) {
    if (error instanceof PortsError) {
      return {
        ok: false,
        file,
        error: { code: error.code, path: error.path, message: error.message },
      };
    }
    throw error;
  }
}

// Reads at most `limit` bytes, so a huge or endless file (say, /dev/zero behind a
// symlink) costs no more than that; decodeProjectYml then refuses anything over the cap.
async function readCapped(file: string, limit: number): Promise<Uint8Array> {
  const handle = await open(file, "r");
  try {
    const buffer = new Uint8Array(limit);
    let length = 0;
    while (length < limit) {
      const { bytesRead } = await handle.read(buffer, length, limit - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

function failure(file: string, code: ProjectFileErrorCode, message: string): ProjectFileResult {
  return { ok: false, file, error: { code, path: "", message } };
}
