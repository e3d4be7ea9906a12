import { PortsError } from "../errors.ts";
import { formatPath } from "../field-path.ts";
import { decodeProjectYml, parseProjectYml } from "../project-yml-parse.ts";
import { renderProjectYml } from "../project-yml-render.ts";
import { EXIT, type ExitCode } from "./exit-codes.ts";
import { decodeUtf8, type CliIo } from "./io.ts";

// The two commands of the runner protocol (context-spec suites `project-yml` and
// `project-yml-parse`): input on stdin; the exact expected bytes on stdout and exit 0, or
// nothing on stdout, one JSON line {"code","path"} on stderr and exit 2.

/** The parse result as the `project-yml-parse` cases pin it: file key order, 2-space indent. */
export function canonicalJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `render-yml`: `{"projectId": N}` on stdin → the bytes of `.talkide/project.yml`. */
export async function renderYmlCommand(io: CliIo): Promise<ExitCode> {
  return protocol(io, async () => renderProjectYml(readProjectId(await readJson(io))));
}

/** `parse-yml`: the bytes of a `.talkide/project.yml` on stdin → its values as JSON. */
export async function parseYmlCommand(io: CliIo): Promise<ExitCode> {
  return protocol(io, async () => {
    return canonicalJson(parseProjectYml(decodeProjectYml(await io.readStdin())));
  });
}

async function protocol(io: CliIo, produce: () => Promise<string>): Promise<ExitCode> {
  let output: string;
  try {
    output = await produce();
  } catch (error) {
    if (!(error instanceof PortsError)) throw error;
    io.err(`${JSON.stringify({ code: error.code, path: error.path })}\n`);
    return EXIT.badFile;
  }
  io.out(output);
  return EXIT.ok;
}

async function readJson(io: CliIo): Promise<unknown> {
  const text = decodeUtf8(await io.readStdin());
  try {
    if (text === null) throw new SyntaxError("not UTF-8");
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Same code as the CLAUDE.md renderer gives for input that is not JSON.
    throw new PortsError("invalid_field", "", "The input is not a JSON document.", {
      cause: error,
    });
  }
}

/** The render input: exactly `{"projectId": <number>}`; the id's range is renderProjectYml's. */
function readProjectId(input: unknown): number {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new PortsError(
      "invalid_field",
      "",
      'The input must be a JSON object like {"projectId": 7}.',
    );
  }
  const record = input as Record<string, unknown>;
  const extra = Object.keys(record).find((key) => key !== "projectId");
  if (extra !== undefined) {
    throw new PortsError(
      "unknown_field",
      formatPath([extra]),
      "The input has a key other than projectId.",
    );
  }
  if (!Object.hasOwn(record, "projectId")) {
    throw new PortsError("missing_field", "projectId", "The input has no projectId.");
  }
  const projectId = record["projectId"];
  if (typeof projectId !== "number") {
    throw new PortsError("invalid_field", "projectId", "projectId must be a JSON number.");
  }
  return projectId;
}
