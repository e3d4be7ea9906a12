import { buildClaudeArgs } from "./claude-args.ts";
import { promptCacheTtlEnv, type PromptCacheTtl } from "./prompt-cache-ttl.ts";
import { sandboxSettings, type SandboxPolicy } from "./sandbox.ts";
import type { SessionPoint } from "./warm-pool.ts";
import { HERMETIC_CLAUDE_ENV } from "./workspace-isolation.ts";

/**
 * How every host launches the `claude` CLI (issue 50): the hosts pass data, this module turns
 * it into the exact arguments (`launchArgs`) and environment (`launchEnv`) the CLI gets. What
 * the hosts decide differently is a value here, never a branch of their own.
 */
export interface LaunchArgsRecipe {
  /** The workspace: the CLI's working directory, readable inside the sandbox. */
  readonly cwd: string;
  /**
   * The system prompt: a plugin's agent (`--plugin-dir`, `--agent`; the backend's Mara) or a
   * text appended to the CLI's own (`--append-system-prompt`; the daemon's standing prompt).
   */
  readonly systemPrompt:
    { readonly pluginDir: string; readonly agent: string } | { readonly append: string };
  /** Where the session resumes; null: a new session (and the warm fingerprint's arguments). */
  readonly resume: SessionPoint | null;
  /** `--permission-mode`; omitted: the CLI's default without the flag. */
  readonly permissionMode?: string | undefined;
  /** `--disallowedTools`, when any. */
  readonly disallowedTools?: readonly string[] | undefined;
  /** `--allowedTools`, when any: print mode denies what is not allowed up front. */
  readonly allowedTools: readonly string[];
  /** Claude Code's sandbox for the agent's commands (`--settings`); null: no command runs. */
  readonly sandbox: SandboxPolicy | null;
  /** The operator's own arguments, last and unchanged. */
  readonly extraArgs?: readonly string[] | undefined;
}

/**
 * The CLI's argv (without the executable). `--exclude-dynamic-system-prompt-sections` is
 * always there: it keeps the working directory, date and git status out of the system prompt,
 * so its bytes are the same for every workspace and turn and the provider's prompt cache is
 * reused (WIRE-NOTES.md).
 */
export function launchArgs(recipe: LaunchArgsRecipe): string[] {
  const args = ["--exclude-dynamic-system-prompt-sections"];
  if (recipe.permissionMode !== undefined) args.push("--permission-mode", recipe.permissionMode);
  const disallowed = recipe.disallowedTools ?? [];
  if (disallowed.length > 0) args.push("--disallowedTools", disallowed.join(","));
  if (recipe.allowedTools.length > 0) args.push("--allowedTools", recipe.allowedTools.join(","));
  if (recipe.sandbox !== null)
    args.push("--settings", JSON.stringify(sandboxSettings(recipe.cwd, recipe.sandbox)));
  const prompt = recipe.systemPrompt;
  return buildClaudeArgs({
    ...(recipe.resume === null
      ? {}
      : {
          resumeSessionId: recipe.resume.id,
          ...(recipe.resume.at === null ? {} : { resumeAtMessageId: recipe.resume.at }),
        }),
    ...("append" in prompt
      ? { appendSystemPrompt: prompt.append }
      : { pluginDir: prompt.pluginDir, agent: prompt.agent }),
    extraArgs: [...args, ...(recipe.extraArgs ?? [])],
  });
}

/** Basic process variables a CLI needs to find programs, a home, a temp dir and a locale. */
const CLI_BASE_VARIABLES = ["PATH", "HOME", "LANG", "LC_ALL", "TZ"] as const;

/** No update checks, telemetry or error reports from a server's process. */
const QUIET_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
};

export interface LaunchEnvRecipe {
  /**
   * What the CLI takes from the host's environment: the basic variables and the `names` listed
   * (the backend: nothing is inherited wholesale), or everything (`"all"`, the daemon); never a
   * variable `withheld` matches (secrets, the provider's credential: the gateway's alone).
   * Whatever the CLI gets, the agent's commands can read.
   */
  readonly inherit: {
    readonly parentEnv: Readonly<Record<string, string | undefined>>;
    readonly names: readonly string[] | "all";
    readonly withheld: readonly RegExp[];
  };
  /** The host's own variables (the daemon's `TICLAWK_*` identity and `ticlawk` PATH). */
  readonly hostEnv?: Readonly<Record<string, string>> | undefined;
  /**
   * The CLI's `CLAUDE_CONFIG_DIR`: sessions, settings and the user-level CLAUDE.md live there, a
   * directory of the service's, so the operator's own ~/.claude never joins the context.
   */
  readonly configDir: string;
  /** The CLI's TMPDIR (its sockets and scratch files stay out of /tmp); null: inherited. */
  readonly tmpDir: string | null;
  /** Turn off the CLI's update checks, telemetry and error reports. */
  readonly quiet: boolean;
  readonly promptCacheTtl: PromptCacheTtl;
  /** Set last, over everything (tests). */
  readonly overrides?: Readonly<Record<string, string>> | undefined;
}

/**
 * The CLI's environment, but for the gateway's per-process credential (its URL and token; the
 * turn engine adds it as each process starts, `ColdStart.credential`) and the turn marker.
 * Always hermetic: no auto memory, no git status block (`HERMETIC_CLAUDE_ENV`).
 */
export function launchEnv(recipe: LaunchEnvRecipe): Record<string, string> {
  const { parentEnv, names, withheld } = recipe.inherit;
  const env: Record<string, string> = {};
  for (const name of names === "all" ? Object.keys(parentEnv) : [...CLI_BASE_VARIABLES, ...names]) {
    const value = parentEnv[name];
    if (value !== undefined && !withheld.some((pattern) => pattern.test(name))) env[name] = value;
  }
  return {
    ...env,
    ...recipe.hostEnv,
    CLAUDE_CONFIG_DIR: recipe.configDir,
    ...(recipe.tmpDir === null ? {} : { TMPDIR: recipe.tmpDir }),
    ...(recipe.quiet ? QUIET_ENV : {}),
    ...HERMETIC_CLAUDE_ENV,
    ...promptCacheTtlEnv(recipe.promptCacheTtl),
    ...recipe.overrides,
  };
}
