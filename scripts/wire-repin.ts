// Re-pins the apps' wire manifests (contract section 6: every block the CLI sends is ours or
// the runtime's pinned text) for the pinned Claude Code, in one command. Run it after a CLI bump
// or after a change of the runtime text the apps make the CLI send (an agent list, a tool):
//
//   sh scripts/toolchain.sh pnpm run wire:repin
//
// It removes every manifest file of both apps (the old version's included), runs each manifest
// suite once with TALKIDE_WIRE_PINS_UPDATE=1, which pins what it cannot place in a file named
// for the pinned version and prints each pinned block, then runs it again without the flag,
// which must pass. Read the printed blocks before committing: only the runtime's own text may
// be pinned, never a file, a message or a reply of ours (each block shows our parts marked).
// CI=true: a suite that cannot run (no pinned binary) fails instead of skipping.
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const WIRE_REPIN_COMMAND = "pnpm run wire:repin";

/** Each app's manifest suite and where its pins live (`<prefix><version>.json`). */
export const WIRE_MANIFEST_SUITES = [
  {
    test: "apps/be/src/wire-manifest.test.ts",
    dir: "apps/be/src",
    prefix: "wire-manifest.claude-",
  },
  {
    test: "apps/daemon/src/wire/manifest.wire.test.ts",
    dir: "apps/daemon/src/wire",
    prefix: "manifest.claude-",
  },
] as const;

/** Every pin file of the apps' manifest suites, relative to `root`, sorted. */
export function wireManifestFiles(root: string): string[] {
  return WIRE_MANIFEST_SUITES.flatMap(({ dir, prefix }) =>
    readdirSync(join(root, dir))
      .filter((name) => name.startsWith(prefix) && name.endsWith(".json"))
      .map((name) => `${dir}/${name}`),
  ).sort();
}

function runSuite(root: string, test: string, update: boolean): number {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: "true" };
  if (update) env["TALKIDE_WIRE_PINS_UPDATE"] = "1";
  else delete env["TALKIDE_WIRE_PINS_UPDATE"];
  const run = spawnSync("vitest", ["run", "--maxWorkers=1", test], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  return run.status ?? 1;
}

function main(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  for (const file of wireManifestFiles(root)) {
    rmSync(join(root, file));
    console.log(`removed ${file}`);
  }
  // One suite at a time: each runs the real CLI, the daemon's one a whole service.
  for (const { test } of WIRE_MANIFEST_SUITES) {
    console.log(`\n== ${test}: pinning (the run fails when it pinned something; read the blocks)`);
    runSuite(root, test, true);
  }
  const failed = WIRE_MANIFEST_SUITES.filter(({ test }) => {
    console.log(`\n== ${test}: checking the new pins`);
    return runSuite(root, test, false) !== 0;
  });
  if (failed.length > 0) {
    console.error(
      `\nwire:repin: ${failed.map((s) => s.test).join(", ")} still fail with the new pins; see above.`,
    );
    process.exit(1);
  }
  console.log(`\nwire:repin: pinned ${wireManifestFiles(root).join(", ")}. Review and commit.`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
