import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The Claude Code release the wire tests pin (devDependency `@anthropic-ai/claude-code`). */
export const REAL_CLAUDE_VERSION = "2.1.330";

const require = createRequire(import.meta.url);

/**
 * Path of the native `claude` binary installed from npm `@anthropic-ai/claude-code`.
 *
 * The package ships the binary in a platform package (`@anthropic-ai/claude-code-linux-x64`,
 * …) and its postinstall copies it over a placeholder script in `bin/claude.exe`. The
 * platform package's binary is used directly, so the wire tests work whether or not the
 * postinstall ran; the copied `bin/claude.exe` is the fallback. Throws with what to do when
 * neither is there.
 */
export function resolveRealClaudePath(): string {
  let manifestPath: string;
  try {
    manifestPath = require.resolve("@anthropic-ai/claude-code/package.json");
  } catch {
    throw new Error(
      "@anthropic-ai/claude-code is not installed; run `pnpm install` in the repository root.",
    );
  }
  const platformPackage = `@anthropic-ai/claude-code-${platformKey()}`;
  try {
    const platformManifest = createRequire(manifestPath).resolve(`${platformPackage}/package.json`);
    const binary = join(dirname(platformManifest), "claude");
    if (isNativeBinary(binary)) return binary;
  } catch {
    // fall through to the postinstall copy
  }
  const copied = join(dirname(manifestPath), "bin", "claude.exe");
  if (isNativeBinary(copied)) return copied;
  throw new Error(
    `Neither ${platformPackage} nor the postinstall copy of its binary is installed for ${process.platform}-${process.arch}; reinstall without --omit=optional.`,
  );
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

function platformKey(): string {
  if (process.platform === "linux") {
    const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
    const musl = report.header?.glibcVersionRuntime === undefined;
    return `linux-${process.arch}${musl ? "-musl" : ""}`;
  }
  return `${process.platform}-${process.arch}`;
}

/** The placeholder `bin/claude.exe` is a 500-byte shell script; the real binary is >100 MB. */
function isNativeBinary(path: string): boolean {
  try {
    return statSync(path).size > 1024 * 1024;
  } catch {
    return false;
  }
}
