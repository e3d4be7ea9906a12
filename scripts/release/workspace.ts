import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is scripts/release/workspace.ts). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly engines?: { readonly node?: string };
  readonly bin?: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
}

export interface WorkspacePackage {
  /** Directory relative to the root, with forward slashes: `packages/renderer`. */
  readonly dir: string;
  readonly manifest: PackageManifest;
}

/** Every package under packages/ that is published (not `"private": true`), by directory. */
export function publishedPackages(root: string = REPO_ROOT): WorkspacePackage[] {
  return readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}`)
    .sort()
    .flatMap((dir) => {
      let text: string;
      try {
        text = readFileSync(join(root, dir, "package.json"), "utf8");
      } catch {
        return [];
      }
      const manifest = JSON.parse(text) as PackageManifest;
      return manifest.private === true ? [] : [{ dir, manifest }];
    });
}
