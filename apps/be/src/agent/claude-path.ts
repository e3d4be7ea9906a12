import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** The placeholder `bin/claude.exe` (before the package's postinstall) is a tiny script. */
function isNativeBinary(path: string): boolean {
  try {
    return statSync(path).size > 1024 * 1024;
  } catch {
    return false;
  }
}

function platformKey(): string {
  if (process.platform === "linux") {
    const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
    return `linux-${process.arch}${report.header?.glibcVersionRuntime === undefined ? "-musl" : ""}`;
  }
  return `${process.platform}-${process.arch}`;
}

/**
 * The `claude` binary of the pinned `@anthropic-ai/claude-code` dependency. The package ships
 * the native binary in a per-platform package and its postinstall copies it over
 * `bin/claude.exe`; the workspace does not run install scripts, so the platform package's
 * binary is used directly, with the copied one as fallback. Null when neither exists (the
 * turn then fails with claude_binary_missing and says how to configure TALKIDE_CLAUDE_PATH).
 */
export function resolveBundledClaudePath(): string | null {
  let manifest: string;
  try {
    manifest = require.resolve("@anthropic-ai/claude-code/package.json");
  } catch {
    return null;
  }
  try {
    const platformManifest = createRequire(manifest).resolve(
      `@anthropic-ai/claude-code-${platformKey()}/package.json`,
    );
    const binary = join(dirname(platformManifest), "claude");
    if (isNativeBinary(binary)) return binary;
  } catch {
    // not installed for this platform: try the postinstall copy
  }
  const copied = join(dirname(manifest), "bin", "claude.exe");
  return isNativeBinary(copied) ? copied : null;
}
