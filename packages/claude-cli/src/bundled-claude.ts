import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The native `claude` binary of an installed npm `@anthropic-ai/claude-code`, resolved the
 * way Node resolves a dependency of the module at `from` (pass your own `import.meta.url`, so
 * the package your app depends on is the one found), or null when it is not installed.
 *
 * The package ships the binary in a per-platform package (`@anthropic-ai/claude-code-linux-x64`,
 * …) and its postinstall copies it over a placeholder script in `bin/claude.exe`. The platform
 * package's binary is used directly, so this works whether or not the postinstall ran; the
 * copied `bin/claude.exe` is the fallback.
 */
export function findBundledClaudePath(from: string | URL): string | null {
  let manifestPath: string;
  try {
    manifestPath = createRequire(from).resolve("@anthropic-ai/claude-code/package.json");
  } catch {
    return null;
  }
  try {
    const platformManifest = createRequire(manifestPath).resolve(
      `@anthropic-ai/claude-code-${platformKey()}/package.json`,
    );
    const binary = join(dirname(platformManifest), "claude");
    if (isNativeBinary(binary)) return binary;
  } catch {
    // not installed for this platform: try the postinstall copy
  }
  const copied = join(dirname(manifestPath), "bin", "claude.exe");
  return isNativeBinary(copied) ? copied : null;
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
