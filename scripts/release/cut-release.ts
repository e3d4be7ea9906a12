import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { execa } from "execa";
import type { LocalRegistry } from "./local-registry.ts";
import { publishedPackages, type WorkspacePackage } from "./workspace.ts";

/** What a cut release put on the registry: package name → version. */
export type PublishedVersions = ReadonlyMap<string, string>;

/** The changeset the release test adds, so `changeset version` always has work to do. */
export const RELEASE_TEST_CHANGESET = "release-test.md";

/**
 * Cuts a release in `copy` (a snapshot from copyCheckout) exactly as a maintainer does:
 * `changeset version` applies the pending changesets (plus one patch changeset of its own for
 * every published package), the published packages are built, and `changeset publish`
 * publishes them to `registry`. Returns the versions the copy now carries.
 */
export async function cutRelease(
  copy: string,
  registry: LocalRegistry,
): Promise<PublishedVersions> {
  const packages = publishedPackages(copy);
  writeFileSync(
    join(copy, ".changeset", RELEASE_TEST_CHANGESET),
    [
      "---",
      ...packages.map(({ manifest }) => `"${manifest.name}": patch`),
      "---",
      "",
      "Release test: proves the release flow end to end against a local registry.",
      "",
    ].join("\n"),
  );
  // Credentials for the copy only; publishing reads them from the workspace's .npmrc.
  writeFileSync(
    join(copy, ".npmrc"),
    `registry=${registry.url}\n${registry.authKey}:_authToken=${registry.token}\n`,
  );
  const env = releaseEnv(copy);
  const run = (file: string, args: string[]) =>
    execa(file, args, { cwd: copy, env, extendEnv: false, stdin: "ignore", all: true });

  await run(join(copy, "node_modules", ".bin", "changeset"), ["version"]);
  // The packages' own build (tsc), dependencies first; run directly because pnpm refuses a
  // workspace whose node_modules is a link.
  for (const { dir } of inDependencyOrder(packages)) {
    await execa(join(copy, dir, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], {
      cwd: join(copy, dir),
      env,
      extendEnv: false,
      stdin: "ignore",
    });
  }
  await run(join(copy, "node_modules", ".bin", "changeset"), ["publish"]);

  return new Map(
    publishedPackages(copy).map(({ manifest }) => [manifest.name, manifest.version] as const),
  );
}

/** Packages ordered so that each comes after the workspace packages it depends on. */
function inDependencyOrder(packages: readonly WorkspacePackage[]): WorkspacePackage[] {
  const ordered: WorkspacePackage[] = [];
  const visit = (pkg: WorkspacePackage) => {
    if (ordered.includes(pkg)) return;
    for (const name of Object.keys(pkg.manifest.dependencies ?? {})) {
      const dependency = packages.find(({ manifest }) => manifest.name === name);
      if (dependency !== undefined) visit(dependency);
    }
    ordered.push(pkg);
  };
  packages.forEach(visit);
  return ordered;
}

/** The environment of the release commands: ours, minus package-manager settings of the caller. */
export function releaseEnv(copy: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm|pnpm)_(config|package|lifecycle)_/i.test(key)) env[key] = value;
  }
  // No install before running or publishing (see copyCheckout): the copy shares dependencies.
  env["pnpm_config_verify_deps_before_run"] = "false";
  env["PATH"] = [
    join(copy, "node_modules", ".bin"),
    dirname(process.execPath),
    process.env["PATH"] ?? "",
  ].join(delimiter);
  return env;
}

/** The text of a file in the copy, for assertions. */
export function readCopyFile(copy: string, path: string): string {
  return readFileSync(join(copy, path), "utf8");
}
