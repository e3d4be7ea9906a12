import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import type { WorkspacePackage } from "./workspace.ts";

/**
 * The lowest Node.js version that every published package's `engines.node` admits. Only the
 * form the workspace uses (`>=MAJOR.MINOR[.PATCH]`) is understood; any other range is an
 * error, so a new kind of range cannot silently test the wrong Node.
 */
export function lowestAdmittedNode(packages: readonly WorkspacePackage[]): string {
  let lowest: [number, number, number] = [0, 0, 0];
  for (const { manifest } of packages) {
    const range = manifest.engines?.node ?? "";
    const match = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range.trim());
    if (match === null) {
      throw new Error(
        `${manifest.name}: engines.node "${range}" is not of the form ">=X.Y[.Z]"; teach lowestAdmittedNode this range`,
      );
    }
    const version: [number, number, number] = [
      Number(match[1]),
      Number(match[2]),
      Number(match[3] ?? 0),
    ];
    if (compare(version, lowest) > 0) lowest = version;
  }
  return lowest.join(".");
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/**
 * The directory holding the `node` binary of exactly `version`, installed like
 * scripts/toolchain.sh does (the `node` package from the npm registry) into
 * `<tools>/node-<version>` when it is not there yet, so CI and later runs reuse it.
 */
export async function ensureNodeBinDir(tools: string, version: string): Promise<string> {
  const prefix = join(tools, `node-${version}`);
  const binDir = join(prefix, "node_modules", ".bin");
  const binary = join(binDir, "node");
  if (existsSync(binary) && (await nodeVersion(binary)) === version) return binDir;
  await execa(
    "npm",
    [
      "install",
      "--prefix",
      prefix,
      "--no-audit",
      "--no-fund",
      "--no-save",
      "--loglevel=error",
      `node@${version}`,
    ],
    { stdin: "ignore" },
  );
  const installed = await nodeVersion(binary);
  if (installed !== version) {
    throw new Error(`installed node@${version} into ${prefix} but it reports ${installed}`);
  }
  return binDir;
}

async function nodeVersion(binary: string): Promise<string> {
  const { stdout } = await execa(binary, ["-p", "process.versions.node"], { stdin: "ignore" });
  return stdout.trim();
}
