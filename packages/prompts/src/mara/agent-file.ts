/**
 * Mara's Claude Code agent and the plugin directory that carries it. The backend starts Mara
 * with `claude --plugin-dir <dir> --agent talkide:talkide-pm`: a plugin's agents are named
 * `<plugin name>:<agent name>`, the plugin name coming from `.claude-plugin/plugin.json` and
 * the agent name from the agent file's front matter.
 */
import { createHash } from "node:crypto";
import { MARA_AGENT_FILE_TEXT } from "./agent-file-text.generated.ts";
import { renderTeamAgentFile, TEAM_AGENTS } from "./team-agents.ts";

/** `name` in the plugin manifest: the namespace of the plugin's agents. */
export const MARA_PLUGIN_NAME = "talkide";

/** `name` in the agent file's front matter. */
export const MARA_AGENT_FILE_NAME = "talkide-pm";

/** The value to pass to `claude --agent` when the plugin directory is loaded. */
export const MARA_AGENT_NAME = `${MARA_PLUGIN_NAME}:${MARA_AGENT_FILE_NAME}`;

/** Where the agent file sits inside the plugin directory. */
export const MARA_AGENT_FILE_PATH = `agents/${MARA_AGENT_FILE_NAME}.md`;

/** Where the plugin manifest sits inside the plugin directory. */
export const PLUGIN_MANIFEST_PATH = ".claude-plugin/plugin.json";

/** Mara's agent file: front matter (`name`, `description`) and her prompt. Always the same bytes. */
export function renderMaraAgentFile(): string {
  return MARA_AGENT_FILE_TEXT;
}

export interface PluginFile {
  /** Relative to the plugin directory, `/`-separated. */
  readonly path: string;
  readonly content: string;
}

/**
 * The plugin manifest. Only `name` and `description`: `version` is left out on purpose, because
 * the directory is loaded with `--plugin-dir` (never installed from a marketplace) and a version
 * would have to be kept in step with the package by hand.
 */
function renderPluginManifest(): string {
  const manifest = {
    name: MARA_PLUGIN_NAME,
    description: "TalkIDE's product manager agent, Mara, who leads a project's conversation.",
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * The files of the Claude Code plugin directory that carries Mara and her team, in a fixed
 * order: the manifest, Mara's agent file, then the team agents in the order of her delegation
 * table.
 */
export function buildMaraPlugin(): readonly PluginFile[] {
  return [
    { path: PLUGIN_MANIFEST_PATH, content: renderPluginManifest() },
    { path: MARA_AGENT_FILE_PATH, content: renderMaraAgentFile() },
    ...TEAM_AGENTS.map((agent) => ({
      path: `agents/${agent.name}.md`,
      content: renderTeamAgentFile(agent),
    })),
  ];
}

/** sha256 (hex) of what a Mara session is started with; see `maraPluginDigest`. */
export interface MaraPluginDigest {
  /** Of Mara's agent file, its UTF-8 bytes. */
  readonly agentSha256: string;
  /** Of the whole plugin directory: every file's path, length and bytes, in the fixed order. */
  readonly pluginSha256: string;
}

/**
 * The digests a backend session records when it starts. Claude Code keeps a session's first
 * system prompt (Mara's agent prompt) and its agent definitions for the whole session, so a
 * session whose digests differ from the current release must not be resumed: the next turn
 * starts a fresh one.
 */
export function maraPluginDigest(): MaraPluginDigest {
  const plugin = createHash("sha256");
  for (const file of buildMaraPlugin()) {
    const bytes = Buffer.from(file.content, "utf8");
    // Path and length frame each file, so no two different plugins hash the same input.
    plugin.update(`${file.path}\0${bytes.length}\0`);
    plugin.update(bytes);
  }
  return {
    agentSha256: createHash("sha256").update(renderMaraAgentFile(), "utf8").digest("hex"),
    pluginSha256: plugin.digest("hex"),
  };
}
