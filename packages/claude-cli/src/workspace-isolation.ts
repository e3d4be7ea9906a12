import { execFile } from "node:child_process";
import { lstatSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";

/**
 * Where Claude Code 2.1.330 finds instructions that we did not render (measured at the wire
 * with the real CLI, see WIRE-NOTES.md, "Instruction sources"):
 *
 * - every ancestor directory of the working directory, up to `/`: `CLAUDE.md`,
 *   `CLAUDE.local.md`, `.claude/CLAUDE.md`, `.claude/rules/` (every file), and, when no
 *   `CLAUDE.md` is found, `AGENTS.md` and `.claude/AGENTS.md`. A home directory that is an
 *   ancestor counts like any other: its `~/.claude/CLAUDE.md` is loaded as "project
 *   instructions" even with `CLAUDE_CONFIG_DIR` pointing elsewhere;
 * - a foreign git work tree around the workspace: its root's `.claude/settings*.json` are
 *   loaded (hooks run), auto memory is keyed by its root, and the agent's commits land in it;
 * - the CLI's config dir (`CLAUDE_CONFIG_DIR`): `CLAUDE.md`, `rules/`, `settings.json`, and the
 *   user's agents, skills, commands and output styles;
 * - the organization-managed directory (`/etc/claude-code` on Linux): `CLAUDE.md`,
 *   `.claude/rules/`, `managed-settings.json`, `managed-settings.d/`, `managed-mcp.json`.
 *
 * Auto memory is switched off in the child's environment (`CLAUDE_CODE_DISABLE_AUTO_MEMORY`),
 * see `HERMETIC_CLAUDE_ENV`.
 */
const ANCESTOR_ENTRIES: readonly string[] = [
  "CLAUDE.md",
  "CLAUDE.local.md",
  "AGENTS.md",
  join(".claude", "CLAUDE.md"),
  join(".claude", "AGENTS.md"),
  join(".claude", "rules"),
  join(".claude", "settings.json"),
  join(".claude", "settings.local.json"),
  ".git",
];
const CONFIG_DIR_ENTRIES: readonly string[] = [
  "CLAUDE.md",
  "rules",
  "settings.json",
  "settings.local.json",
  "agents",
  "skills",
  "commands",
  "output-styles",
];
const MANAGED_ENTRIES: readonly string[] = [
  "CLAUDE.md",
  join(".claude", "CLAUDE.md"),
  join(".claude", "rules"),
  "managed-settings.json",
  "managed-settings.d",
  "managed-mcp.json",
];

/** Claude Code's organization-managed directory on Linux (hard-coded in the CLI). */
export const MANAGED_CLAUDE_DIR = "/etc/claude-code";

/**
 * Environment for every spawn of the CLI that keeps its own additions out of the context:
 * no auto memory (a `MEMORY.md` the agent wrote in an earlier session would be loaded into the
 * next one, and the memory instructions add 2.2 KB per session), and no git instructions (the
 * git status block carries the workspace's branch, changed files and recent commit messages).
 */
export const HERMETIC_CLAUDE_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
  CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1",
};

export type IsolationSource = "ancestor" | "foreign_git" | "config_dir" | "managed";

export interface IsolationBreach {
  /** Absolute path of the file or directory that the CLI would load or obey. */
  readonly path: string;
  readonly source: IsolationSource;
}

export interface IsolationOptions {
  /**
   * The directory whose ancestors are checked: a workspace, or the root that holds every
   * workspace (then the root itself is checked too, as it is an ancestor of each of them).
   */
  readonly workspace: string;
  /** `true` when `workspace` is the parent of the workspaces, not one of them. */
  readonly isRoot?: boolean;
  /** The `CLAUDE_CONFIG_DIR` the CLI gets. */
  readonly claudeConfigDir: string;
  /** Default `MANAGED_CLAUDE_DIR`. */
  readonly managedDir?: string;
}

/** Every instruction source outside what we render that the CLI would use for this workspace. */
export function findIsolationBreaches(options: IsolationOptions): Promise<IsolationBreach[]> {
  const workspace = resolve(options.workspace);
  const candidates: IsolationBreach[] = [];
  let directory = options.isRoot === true ? workspace : dirname(workspace);
  for (;;) {
    for (const entry of ANCESTOR_ENTRIES) {
      const path = join(directory, entry);
      candidates.push({ path, source: entry === ".git" ? "foreign_git" : "ancestor" });
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  const configDir = resolve(options.claudeConfigDir);
  for (const entry of CONFIG_DIR_ENTRIES) {
    candidates.push({ path: join(configDir, entry), source: "config_dir" });
  }
  const managedDir = resolve(options.managedDir ?? MANAGED_CLAUDE_DIR);
  for (const entry of MANAGED_ENTRIES) {
    candidates.push({ path: join(managedDir, entry), source: "managed" });
  }
  // This runs before every turn, warm ones included: see `exists`.
  const present = candidates.map((candidate) => exists(candidate.path));
  const breaches = candidates.filter((_, index) => present[index] === true);
  const nested =
    options.isRoot === true
      ? false
      : isInside(configDir, workspace) || isInside(workspace, configDir);
  if (nested) {
    breaches.push({ path: configDir, source: "config_dir" });
  }
  return Promise.resolve(breaches);
}

const WHY: Record<IsolationSource, string> = {
  ancestor: "Claude Code loads it into every agent request as instructions",
  foreign_git:
    "the workspace would be inside another git work tree (its settings load, the agent's commits land in it)",
  config_dir: "Claude Code reads it from its config dir (CLAUDE_CONFIG_DIR) for every agent",
  managed: "Claude Code applies it as organization policy to every agent",
};

/** Thrown when the CLI would see instructions the platform did not write. */
export class WorkspaceIsolationError extends Error {
  readonly code = "workspace_not_isolated";
  readonly breaches: readonly IsolationBreach[];
  constructor(breaches: readonly IsolationBreach[], where: string) {
    const first = breaches[0];
    super(
      `${where} is not isolated: ${breaches
        .map((breach) => `${breach.path} (${WHY[breach.source]})`)
        .join("; ")}. ${
        first?.source === "config_dir"
          ? "Remove these from the Claude config dir, or point the service at an empty one."
          : "Move or remove these files, or choose a workspaces directory outside any tree that holds them."
      }`,
    );
    this.name = "WorkspaceIsolationError";
    this.breaches = breaches;
  }
}

/** Throws `WorkspaceIsolationError` naming every breach; `where` says what was checked. */
export async function assertWorkspaceIsolated(
  options: IsolationOptions,
  where = options.workspace,
): Promise<void> {
  const breaches = await findIsolationBreaches(options);
  if (breaches.length > 0) throw new WorkspaceIsolationError(breaches, where);
}

/** Instruction locations inside a workspace: files the CLI loads that an agent may write. */
const INSIDE_FILES: readonly string[] = [
  "CLAUDE.md",
  "CLAUDE.local.md",
  "AGENTS.md",
  join(".claude", "CLAUDE.md"),
  join(".claude", "AGENTS.md"),
  join(".claude", "settings.json"),
  join(".claude", "settings.local.json"),
  ".mcp.json",
];
const INSIDE_DIRECTORIES: readonly string[] = [
  join(".claude", "rules"),
  join(".claude", "agents"),
  join(".claude", "skills"),
  join(".claude", "commands"),
];
/** Nested instruction files load when the agent works in their directory. */
const NESTED_NAMES = new Set(["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md"]);
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules"]);
const MAX_NESTED_DEPTH = 4;
const MAX_LISTED_DIRECTORIES = 2_000;

/**
 * Files in instruction locations inside a workspace, relative to it and sorted, except the ones
 * the platform wrote itself (`ours`, relative paths). The agent can write any file in its
 * workspace; these are the ones the CLI would load as instructions, so they are reported.
 * Nested `CLAUDE.md`/`CLAUDE.local.md`/`AGENTS.md` are looked for up to four levels deep,
 * skipping `.git` and `node_modules`.
 */
export async function findWorkspaceInstructionFiles(
  workspace: string,
  ours: readonly string[] = [],
): Promise<string[]> {
  const found = new Set<string>();
  // The fixed places; the result is sorted, so the order of the looks is free.
  const present = INSIDE_FILES.map((file) => exists(join(workspace, file)));
  const listings = await Promise.all(
    INSIDE_DIRECTORIES.map((directory) => listFiles(join(workspace, directory))),
  );
  INSIDE_FILES.forEach((file, index) => {
    if (present[index] === true) found.add(file);
  });
  INSIDE_DIRECTORIES.forEach((directory, index) => {
    for (const file of listings[index] ?? []) found.add(join(directory, file));
  });
  let listed = 0;
  const walk = async (relativeDir: string, depth: number): Promise<void> => {
    if (depth > MAX_NESTED_DEPTH || listed >= MAX_LISTED_DIRECTORIES) return;
    listed += 1;
    const entries = await readdir(join(workspace, relativeDir), { withFileTypes: true }).catch(
      () => [],
    );
    for (const entry of entries) {
      const path = join(relativeDir, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) await walk(path, depth + 1);
      else if (depth > 0 && NESTED_NAMES.has(entry.name)) found.add(path);
    }
  };
  await walk("", 0);
  for (const file of ours) found.delete(file);
  return [...found].sort();
}

const run = promisify(execFile);

/** Repositories being created by this process, by workspace: concurrent turns share one. */
const creating = new Map<string, Promise<boolean>>();

/**
 * Makes the workspace a git repository of its own (`git init`) unless it already is one, so
 * the CLI treats it as the project root and never a foreign work tree around it. Returns true
 * when it created the repository. Safe when several turns of one workspace (an agent's
 * conversations) start at once: in this process they share one `git init`, and an init that
 * fails because another process made the repository in the meantime counts as done.
 */
export function ensureWorkspaceRepository(workspace: string): Promise<boolean> {
  const pending = creating.get(workspace);
  if (pending !== undefined) return pending.then(() => false);
  const created = createRepository(workspace).finally(() => {
    creating.delete(workspace);
  });
  creating.set(workspace, created);
  return created;
}

async function createRepository(workspace: string): Promise<boolean> {
  if (exists(join(workspace, ".git"))) return false;
  try {
    await run("git", ["init", "--quiet", workspace], { env: { PATH: process.env["PATH"] ?? "" } });
  } catch (error) {
    if (exists(join(workspace, ".git", "HEAD"))) return false;
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ENOENT"
        ? "git is not installed: every workspace is its own git repository. Install git (Debian: apt-get install git) and start again."
        : `git init failed in the workspace ${workspace}; check that the directory is writable.`,
      { cause: error },
    );
  }
  return true;
}

/**
 * Whether anything is at `path`, without following a link. Synchronous on purpose: a turn asks
 * a fixed few dozen of these before its spawn, and an `lstat` of a local path takes a few
 * microseconds, while each asynchronous one costs a round through libuv's thread pool (about
 * 0.2 ms for the set on an idle machine, more while the turn's own reads queue behind them).
 */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    // Not reachable (a parent is no directory, access denied): nothing the CLI could load.
    return false;
  }
}

async function listFiles(directory: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const path = prefix === "" ? entry.name : join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(join(directory, entry.name), path)));
    else files.push(path);
  }
  return files;
}

function isInside(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path === "" || (!path.startsWith(`..${sep}`) && path !== ".." && !path.startsWith(sep));
}
