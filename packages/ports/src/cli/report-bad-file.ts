import { EXIT, type ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";
import type { ProjectFileError } from "./project-file.ts";

/** Reports an unusable project.yml on stderr (one JSON line with `--json`) and gives exit 2. */
export function reportBadFile(
  io: CliIo,
  file: string,
  error: ProjectFileError,
  json: boolean,
): ExitCode {
  if (json) {
    io.err(
      `${JSON.stringify({ code: error.code, path: error.path, file, message: error.message })}\n`,
    );
    return EXIT.badFile;
  }
  const where = error.path === "" ? error.code : `${error.code} at ${error.path}`;
  const advice =
    error.code === "file_not_found"
      ? "Run this in the project directory, or pass --project-dir. TalkIDE writes the file before every agent spawn."
      : "TalkIDE writes this file before every agent spawn, and it is the only source of this project's ports. " +
        "Do not edit it or pass ports another way; tell the user that the file is wrong.";
  io.err(`talkide-ports: ${error.message} [${where}]\n${advice}\n`);
  return EXIT.badFile;
}
