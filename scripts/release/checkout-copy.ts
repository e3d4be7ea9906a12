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
  symlinkSync(join(root, "node_modules"), join(dest, "node_modules"));
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
  // The link to the checkout's node_modules is not a directory, so ".gitignore"'s
  // "node_modules/" does not match it.
  appendFileSync(join(dest, ".git", "info", "exclude"), "/node_modules\n");
  await git("add", "--all");
  await git("commit", "--quiet", "--message", "snapshot of the checkout for the release test");
}
