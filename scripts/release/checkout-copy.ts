import {
  appendFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";

/**
 * Copies the checkout at `root` (tracked files plus untracked files git does not ignore, as
 * they are on disk) to `dest` and commits them there as one snapshot, so a release can be cut
 * in the copy without touching the checkout. Installed dependencies are shared, not copied:
 * `node_modules` at the root becomes a link to the checkout's, and each workspace package's
 * own `node_modules` (pnpm's relative links into the root store) is copied as links.
 */
export async function copyCheckout(root: string, dest: string): Promise<void> {
  const { stdout } = await execa(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: root, stdin: "ignore" },
  );
  for (const file of new Set(stdout.split("\0").filter((name) => name !== ""))) {
    const source = join(root, file);
    if (!existsSync(source)) continue; // deleted in the working tree, not yet in the index
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(source, join(dest, file), { verbatimSymlinks: true });
  }
  linkRootModules(join(root, "node_modules"), join(dest, "node_modules"));
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(dest, group))) {
      const modules = join(root, group, name, "node_modules");
      if (existsSync(modules) && lstatSync(modules).isDirectory()) {
        cpSync(modules, join(dest, group, name, "node_modules"), {
          recursive: true,
          verbatimSymlinks: true,
        });
      }
    }
  }
  const git = (...args: string[]) =>
    execa(
      "git",
      [
        "-c",
        "user.name=Release Test",
        "-c",
        "user.email=release-test@localhost",
        "-c",
        "commit.gpgsign=false",
        ...args,
      ],
      { cwd: dest, stdin: "ignore" },
    );
  await git("init", "--quiet", "--initial-branch=main");
  // pnpm (>= 10) installs before it runs or publishes when it thinks node_modules is stale,
  // and in the copy it would: never let it write through the links into the checkout.
  appendFileSync(join(dest, "pnpm-workspace.yaml"), "\nverifyDepsBeforeRun: false\n");
  await git("add", "--all");
  await git("commit", "--quiet", "--message", "snapshot of the checkout for the release test");
}

/**
 * The copy's root node_modules: a directory of its own holding a link to each entry of the
 * checkout's (files such as pnpm's .modules.yaml are copied), so nothing that replaces an
 * entry in the copy can change the checkout's.
 */
function linkRootModules(source: string, target: string): void {
  mkdirSync(target);
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    if (entry.isFile()) cpSync(join(source, entry.name), join(target, entry.name));
    else symlinkSync(join(source, entry.name), join(target, entry.name));
  }
}
