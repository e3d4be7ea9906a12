import { PLATFORM_PORTS } from "../derive.ts";
import { EXIT, type ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";
import { loadProjectFile } from "./project-file.ts";
import { reportBadFile } from "./report-bad-file.ts";
import { canonicalJson } from "./runner.ts";

export interface ShowOptions {
  readonly projectDir: string;
  readonly json: boolean;
}

/** `show`: the project's ports and URLs, from the file and nothing else. */
export async function show(io: CliIo, options: ShowOptions): Promise<ExitCode> {
  const loaded = await loadProjectFile(options.projectDir);
  if (!loaded.ok) return reportBadFile(io, loaded.file, loaded.error, options.json);
  const { values } = loaded;
  if (options.json) {
    io.out(canonicalJson(values));
    return EXIT.ok;
  }
  io.out(
    [
      `Project ${values.project.id} (${loaded.file})`,
      `BE  port ${values.ports.be}  ${values.urls.be}`,
      `FE  port ${values.ports.fe}  ${values.urls.fe}`,
      `Reserved for the TalkIDE platform, never to be used or stopped: ${PLATFORM_PORTS.be}, ${PLATFORM_PORTS.fe}`,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
