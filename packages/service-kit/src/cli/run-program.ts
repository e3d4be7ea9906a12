import type { Command } from "commander";

/**
 * Runs a commander program that throws instead of exiting: a failure with a stable `code`
 * prints one line, `<program>: <what to do> [<code>]`, and gives exit status 1; commander's
 * own exits (help, usage errors) keep their status.
 */
export async function runProgram(
  program: Command,
  argv: readonly string[],
  err: (text: string) => void,
): Promise<number> {
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (isCommanderExit(error)) return error.exitCode;
    if (error instanceof Error && "code" in error && typeof error.code === "string") {
      err(`${program.name()}: ${error.message} [${error.code}]\n`);
      return 1;
    }
    throw error;
  }
}

function isCommanderExit(error: unknown): error is { exitCode: number } {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof error.code === "string" &&
    error.code.startsWith("commander.") &&
    "exitCode" in error &&
    typeof error.exitCode === "number"
  );
}
