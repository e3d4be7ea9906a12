import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readChangesets } from "@changesets/read";
import { execa } from "execa";
import { publishedPackages, type WorkspacePackage } from "./workspace.ts";

// The release gates CI runs (scripts/release-gates.ts). "A change" means a difference between
// the working tree and the package's last release, and the last release of a package is the
// last commit that changed the "version" line of its package.json: `changeset version` is the
// only thing that does. Found from history alone, so a fresh full clone needs no tags and no
// remote branches.

const SPEC_PACKAGE = "@talkide/context-spec";
/** What a change to a published package's behaviour touches. */
const GATED_DIRS = ["src", "spec", "cases", "kotlin"];
/** Files under those directories that are never published (see each package's "files"). */
const UNPUBLISHED = /(\.test\.ts|\.bench\.ts)$|\/(test-support|test-fixtures)\//;
const BUMPS = ["none", "patch", "minor", "major"] as const;
type Bump = (typeof BUMPS)[number];

export interface GateReport {
  readonly problems: string[];
  /** One line per published package: its last release commit and what changed since. */
  readonly notes: string[];
}

export async function checkReleaseGates(root: string): Promise<GateReport> {
  const git = async (...args: string[]) =>
    (await execa("git", args, { cwd: root, stdin: "ignore" })).stdout;
  if ((await git("rev-parse", "--is-shallow-repository")).trim() === "true") {
    return {
      problems: [
        "the release gates compare with each package's last release, found in git history, but this clone is shallow: run them in a full clone (git fetch --unshallow)",
      ],
      notes: [],
    };
  }
  const pending = await pendingBumps(root);
  const problems: string[] = [];
  const notes: string[] = [];
  for (const pkg of publishedPackages(root)) {
    const base = await lastRelease(git, pkg);
    const changed = await changedSince(git, root, base, pkg);
    const bump = pending.get(pkg.manifest.name) ?? "none";
    notes.push(
      `${pkg.manifest.name}@${pkg.manifest.version}: version last set in ${base?.slice(0, 12) ?? "(no commit)"}, ${String(changed.length)} published file(s) changed since, pending bump: ${bump}`,
    );
    if (changed.length > 0 && bump === "none") {
      problems.push(
        `${pkg.manifest.name}: ${String(changed.length)} file(s) changed since its last release without a changeset (${list(changed)}). Add one with \`pnpm changeset\`.`,
      );
    }
    if (pkg.manifest.name === SPEC_PACKAGE) {
      const cases = changedExpectedFiles(
        base === null
          ? null
          : await git("show", `${base}:${pkg.dir}/manifest.json`).catch(() => null),
        readFileSync(join(root, pkg.dir, "manifest.json"), "utf8"),
      );
      const needed: Bump = pkg.manifest.version.startsWith("0.") ? "minor" : "major";
      for (const line of summarizeCaseChanges(cases)) notes.push(`${SPEC_PACKAGE} cases ${line}`);
      if (cases.length > 0 && BUMPS.indexOf(bump) < BUMPS.indexOf(needed)) {
        problems.push(
          `${SPEC_PACKAGE}: the expected bytes of ${String(cases.length)} case file(s) changed since its last release (${list(cases)}), which is breaking for every foreign runtime: add a changeset with at least a ${needed} bump of ${SPEC_PACKAGE} that names the changed cases (pending: ${bump}).`,
        );
      }
    }
  }
  return { problems, notes };
}

/** The highest pending bump per package over all changesets in .changeset/. */
async function pendingBumps(root: string): Promise<Map<string, Bump>> {
  const bumps = new Map<string, Bump>();
  if (!existsSync(join(root, ".changeset"))) return bumps;
  for (const changeset of await readChangesets(root)) {
    for (const { name, type } of changeset.releases) {
      const current = bumps.get(name) ?? "none";
      if (BUMPS.indexOf(type) > BUMPS.indexOf(current)) bumps.set(name, type);
    }
  }
  return bumps;
}

type Git = (...args: string[]) => Promise<string>;

/** The last commit that changed the package's version, or null if none was ever committed. */
async function lastRelease(git: Git, pkg: WorkspacePackage): Promise<string | null> {
  const hash = await git(
    "log",
    "-1",
    "--format=%H",
    "-G",
    '^  "version": ',
    "--",
    `${pkg.dir}/package.json`,
  );
  return hash.trim() === "" ? null : hash.trim();
}

/** Published files under src/, spec/, cases/ and kotlin/ that differ from `base` (or all, without one). */
async function changedSince(
  git: Git,
  root: string,
  base: string | null,
  pkg: WorkspacePackage,
): Promise<string[]> {
  const paths = GATED_DIRS.map((dir) => `${pkg.dir}/${dir}`).filter((path) =>
    existsSync(join(root, path)),
  );
  if (paths.length === 0) return [];
  const tracked =
    base === null
      ? await git("ls-files", "--", ...paths)
      : await git("diff", "--name-only", "--no-renames", base, "--", ...paths);
  const untracked = await git("ls-files", "--others", "--exclude-standard", "--", ...paths);
  return [...new Set(`${tracked}\n${untracked}`.split("\n"))]
    .filter((file) => file !== "" && !UNPUBLISHED.test(file))
    .sort();
}

interface Manifest {
  readonly suites?: Record<string, { readonly cases?: Record<string, Record<string, string>> }>;
}

/** `<suite>/<case>/<file> (changed|added|removed)` for every expected file whose hash differs. */
export function changedExpectedFiles(released: string | null, current: string): string[] {
  const hashes = (text: string | null) => {
    const map = new Map<string, string>();
    const manifest = (text === null ? {} : JSON.parse(text)) as Manifest;
    for (const [suite, { cases = {} }] of Object.entries(manifest.suites ?? {})) {
      for (const [id, files] of Object.entries(cases)) {
        for (const [file, hash] of Object.entries(files)) map.set(`${suite}/${id}/${file}`, hash);
      }
    }
    return map;
  };
  const before = hashes(released);
  const after = hashes(current);
  const changes: string[] = [];
  for (const [file, hash] of after) {
    if (!before.has(file)) changes.push(`${file} (added)`);
    else if (before.get(file) !== hash) changes.push(`${file} (changed)`);
  }
  for (const file of before.keys()) if (!after.has(file)) changes.push(`${file} (removed)`);
  return changes.sort();
}

/**
 * One line per suite for the changelog and the version notes (docs/versions.md):
 * `claude-md: 2 added (a, b); 1 changed (c)`. A case counts once per kind of change.
 */
export function summarizeCaseChanges(changes: readonly string[]): string[] {
  const bySuite = new Map<string, Map<string, Set<string>>>();
  for (const change of changes) {
    const match = /^([^/]+)\/([^/]+)\/.* \((added|changed|removed)\)$/.exec(change);
    if (match === null) continue;
    const [, suite = "", id = "", kind = ""] = match;
    const kinds = bySuite.get(suite) ?? new Map<string, Set<string>>();
    bySuite.set(suite, kinds);
    kinds.set(kind, (kinds.get(kind) ?? new Set()).add(id));
  }
  return [...bySuite.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([suite, kinds]) => {
      const parts = ["added", "changed", "removed"].flatMap((kind) => {
        const ids = [...(kinds.get(kind) ?? [])].sort();
        return ids.length === 0 ? [] : [`${String(ids.length)} ${kind} (${ids.join(", ")})`];
      });
      return `${suite}: ${parts.join("; ")}`;
    });
}

function list(items: readonly string[]): string {
  const shown = items.slice(0, 5).join(", ");
  return items.length > 5 ? `${shown}, and ${String(items.length - 5)} more` : shown;
}
