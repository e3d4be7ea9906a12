import { join } from "node:path";
import { findBundledClaudePath } from "../bundled-claude.ts";
import { assertSandboxAvailable } from "../sandbox.ts";

/** The Claude Code release the wire tests pin (devDependency `@anthropic-ai/claude-code`). */
export const REAL_CLAUDE_VERSION = "2.1.337";

/**
 * Path of the native `claude` binary installed from npm `@anthropic-ai/claude-code` (this
 * package's pinned devDependency). Throws with what to do when it is not installed.
 */
export function resolveRealClaudePath(): string {
  const path = findBundledClaudePath(import.meta.url);
  if (path === null) {
    throw new Error(
      `The native claude binary of @anthropic-ai/claude-code is not installed for ${process.platform}-${process.arch}; run \`pnpm install\` in the repository root (without --omit=optional).`,
    );
  }
  return path;
}

/** `resolveRealClaudePath()`, or null when the real CLI is not installed on this machine. */
export const REAL_CLAUDE_PATH: string | null = (() => {
  try {
    return resolveRealClaudePath();
  } catch {
    return null;
  }
})();

export interface RealClaudeEnvOptions {
  /** The fake Messages API's URL (`startFakeMessagesApi().url`). */
  readonly baseUrl: string;
  /**
   * An isolated home directory; the CLI's config and session transcripts go to
   * `<home>/.claude` (a resume only finds sessions of the same config dir), scratch files to
   * `<home>/tmp`.
   */
  readonly home: string;
  /** Default `test-key` (the fake API accepts any key). */
  readonly apiKey?: string;
  /** Default: this process's PATH. */
  readonly path?: string;
  /** Added last (overrides the defaults). */
  readonly extra?: Readonly<Record<string, string>>;
}

/**
 * The complete environment for running the real CLI against a fake Messages API on loopback
 * with nothing of the developer's own Claude setup leaking in: isolated HOME,
 * CLAUDE_CONFIG_DIR and TMPDIR, an API key (so no login is attempted) and every switch that keeps it
 * from calling anything but `ANTHROPIC_BASE_URL` (telemetry, error reports, auto-update).
 */
export function realClaudeEnv(options: RealClaudeEnvOptions): Record<string, string> {
  return {
    PATH: options.path ?? process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: options.home,
    CLAUDE_CONFIG_DIR: join(options.home, ".claude"),
    // The CLI keeps scratch files (tool output, its messaging socket) under $TMPDIR/claude-<uid>
    // and $TMPDIR/cc-socks; inside the home they are removed with it. It creates the dir.
    TMPDIR: join(options.home, "tmp"),
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: options.apiKey ?? "test-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...options.extra,
  };
}

/**
 * Whether a suite that drives the real CLI can run here. Without the binary a local run
 * skips it with a loud warning; a CI run (CI=true, as `.ci/run` sets) throws with what to
 * install, so a green CI never hides a wire suite that did not run.
 */
export function realClaudeSuiteCanRun(
  suite: string,
  path: string | null = REAL_CLAUDE_PATH,
): boolean {
  if (path !== null) return true;
  const missing =
    `${suite} needs the pinned claude binary (@anthropic-ai/claude-code ${REAL_CLAUDE_VERSION}) ` +
    `for ${process.platform}-${process.arch}, which is not installed: run \`pnpm install\` in ` +
    "the repository root (without --omit=optional; its postinstall puts the binary in place).";
  const ci = (process.env["CI"] ?? "").trim().toLowerCase();
  if (ci !== "" && ci !== "false" && ci !== "0") {
    throw new Error(`${missing} Under CI=true this suite fails instead of skipping.`);
  }
  console.warn(`\n!!! SKIPPING: ${missing} !!!\n`);
  return false;
}

/**
 * Whether a suite that runs commands in Claude Code's sandbox can run here (bubblewrap and
 * socat installed and working: `sh scripts/debian-packages.sh sandbox`). Like
 * {@link realClaudeSuiteCanRun}: skipped loudly locally, a failure under CI=true.
 */
export async function sandboxSuiteCanRun(suite: string): Promise<boolean> {
  const unavailable = await assertSandboxAvailable(suite).then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  if (unavailable === null) return true;
  const ci = (process.env["CI"] ?? "").trim().toLowerCase();
  if (ci !== "" && ci !== "false" && ci !== "0") {
    throw new Error(`${unavailable} Under CI=true this suite fails instead of skipping.`);
  }
  console.warn(`\n!!! SKIPPING: ${unavailable} !!!\n`);
  return false;
}
