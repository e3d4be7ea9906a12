import { readFile } from "node:fs/promises";

/** One invocation of the fake `claude`, as it appended it to `FAKE_CLAUDE_RECORD`. */
export interface FakeClaudeRecord {
  readonly pid: number;
  /** Arguments after the executable. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  /** The prompt: everything read on standard input, or the turn's message with stream-json input. */
  readonly stdin: string;
  /** How the prompt came: as text on standard input, or as one stream-json line of a warm process. */
  readonly input: "text" | "stream-json";
  readonly scenario: string;
  /** What `FAKE_CLAUDE_RUN` did, or null when it was not set. */
  readonly run: {
    readonly command: string;
    readonly exitCode: number | null;
    readonly stdout: string;
    readonly stderr: string;
  } | null;
}

/** Reads a `FAKE_CLAUDE_RECORD` file; a file that does not exist yet means no invocation. */
export async function readFakeClaudeRecords(file: string): Promise<FakeClaudeRecord[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as FakeClaudeRecord);
}
