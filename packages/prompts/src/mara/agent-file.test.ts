import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { caseFile, specPage, templateBlockOf } from "../test-support/paths.ts";
import {
  buildMaraPlugin,
  MARA_AGENT_FILE_NAME,
  MARA_AGENT_FILE_PATH,
  MARA_AGENT_NAME,
  MARA_PLUGIN_NAME,
  maraPluginDigest,
  PLUGIN_MANIFEST_PATH,
  renderMaraAgentFile,
} from "./agent-file.ts";

const agentFile = renderMaraAgentFile();

function frontMatter(text: string): { data: unknown; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (match === null) throw new Error("no front matter");
  return { data: parseYaml(match[1] ?? "") as unknown, body: match[2] ?? "" };
}

describe("Mara's agent file", () => {
  test("is the case agent-file/mara and the spec's template, byte for byte", () => {
    expect(agentFile).toBe(readFileSync(caseFile("agent-file", "mara", "expected.md"), "utf8"));
    expect(agentFile).toBe(templateBlockOf(readFileSync(specPage("agent-file.md"), "utf8")));
  });

  test("its front matter parses as YAML with exactly name and description", () => {
    const { data } = frontMatter(agentFile);
    expect(data).toEqual({ name: MARA_AGENT_FILE_NAME, description: expect.any(String) as string });
    const { description } = data as { description: string };
    expect(description.trim().length).toBeGreaterThan(40);
    expect(description).toContain("Mara");
    expect(MARA_AGENT_FILE_NAME).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  test("canonical bytes: NFC, \\n line ends, no trailing white space, one final \\n", () => {
    expect(agentFile.normalize("NFC")).toBe(agentFile);
    expect(agentFile).not.toMatch(/\r/);
    expect(agentFile).not.toMatch(/[ \t]$/m);
    expect(agentFile.endsWith("\n")).toBe(true);
    expect(agentFile.endsWith("\n\n")).toBe(false);
    expect(renderMaraAgentFile()).toBe(agentFile);
  });

  test("holds every element of contract 4.3", () => {
    const { body } = frontMatter(agentFile);
    const required = [
      "You are Mara, the product manager of TalkIDE",
      "Never send preview, localhost or port URLs",
      "File Explorer",
      "Never paste stack traces",
      "the active writer's wins",
      "Other members' briefings are defaults",
      "pass on only the part of the",
      "| Analyst |",
      "| Backend developer |",
      "| Frontend developer |",
      "| Reviewer |",
      "| DevOps |",
      "You do not read source code yourself",
      "Take ports and URLs only from `.talkide/project.yml`",
      "When a project port is busy, stop and ask the person what to do",
      "## Privacy",
      "personal data",
    ];
    for (const phrase of required)
      expect(body.replace(/\n/g, " ")).toContain(phrase.replace(/\n/g, " "));
    expect(body).not.toMatch(/\b\d{4}\b/);
  });
});

describe("the plugin", () => {
  test("is the manifest, Mara's agent file and her team's, in that order", () => {
    const files = buildMaraPlugin();
    expect(files.map((file) => file.path)).toEqual([
      PLUGIN_MANIFEST_PATH,
      MARA_AGENT_FILE_PATH,
      ...TEAM.map((name) => `agents/${name}.md`),
    ]);
    expect(files[1]?.content).toBe(agentFile);
    expect(MARA_AGENT_FILE_PATH).toBe("agents/talkide-pm.md");
    expect(PLUGIN_MANIFEST_PATH).toBe(".claude-plugin/plugin.json");
  });

  test("the manifest names the plugin, and MARA_AGENT_NAME is <plugin>:<agent>", () => {
    const manifest = buildMaraPlugin()[0]?.content ?? "";
    expect(JSON.parse(manifest)).toEqual({
      name: MARA_PLUGIN_NAME,
      description: expect.any(String) as string,
    });
    expect(manifest.endsWith("}\n")).toBe(true);
    expect(MARA_AGENT_NAME).toBe("talkide:talkide-pm");
  });

  test("the manifest shown in the spec is the one built", () => {
    const manifest = buildMaraPlugin()[0]?.content ?? "";
    expect(readFileSync(specPage("agent-file.md"), "utf8")).toContain(`\`\`\`\n${manifest}\`\`\``);
  });
});

const TEAM = ["analyst", "backend-developer", "frontend-developer", "reviewer", "devops"];

describe("the team agents", () => {
  const spec = readFileSync(specPage("agent-file.md"), "utf8");
  const teamFiles = buildMaraPlugin().slice(2);

  test("are the files the spec page shows, byte for byte", () => {
    for (const file of teamFiles) {
      expect(spec).toContain(`\`\`\`agent ${file.path}\n${file.content}\`\`\`\n`);
    }
  });

  test("never see CLAUDE.md: omitClaudeMd in the front matter, and they are told so", () => {
    for (const file of teamFiles) {
      const { data, body } = frontMatter(file.content);
      const name = file.path.replace(/^agents\/|\.md$/g, "");
      expect(data).toEqual({ name, description: expect.any(String) as string, omitClaudeMd: true });
      expect(body).toContain("You do not see the project's\n  `CLAUDE.md`");
      expect(body).toMatch(/## Your Lane\n/);
      expect(file.content.normalize("NFC")).toBe(file.content);
      expect(file.content).not.toMatch(/[ \t]$/m);
      expect(file.content.endsWith("\n") && !file.content.endsWith("\n\n")).toBe(true);
    }
  });

  test("carry the port guard: ports only from the YAML, never from an argument", () => {
    for (const file of teamFiles) {
      const body = file.content.replace(/\n\s*/g, " ");
      expect(body).toContain("only from `.talkide/project.yml`, with `talkide-ports show`");
      expect(body).toContain("never from a command-line argument");
      expect(body).toContain("`platform.reserved_ports` belong to TalkIDE");
      expect(body).not.toMatch(/\b\d{4}\b/);
    }
  });

  test("Mara's delegation table names exactly the agents the plugin carries", () => {
    const named = [...agentFile.matchAll(/^\| [^|]+ \| `([^`]+)` \|/gm)].map((m) => m[1]);
    expect(named).toEqual(TEAM.map((name) => `${MARA_PLUGIN_NAME}:${name}`));
    expect(teamFiles.map((file) => `${MARA_PLUGIN_NAME}:${frontMatterName(file.content)}`)).toEqual(
      named,
    );
  });
});

function frontMatterName(text: string): string {
  return (frontMatter(text).data as { name: string }).name;
}

describe("maraPluginDigest", () => {
  test("hashes the agent file's bytes and every file of the plugin, framed by path and length", () => {
    const digest = maraPluginDigest();
    expect(digest.agentSha256).toBe(createHash("sha256").update(agentFile, "utf8").digest("hex"));
    const plugin = createHash("sha256");
    for (const file of buildMaraPlugin()) {
      const bytes = Buffer.from(file.content, "utf8");
      plugin.update(`${file.path}\0${bytes.length}\0`).update(bytes);
    }
    expect(digest.pluginSha256).toBe(plugin.digest("hex"));
    expect(maraPluginDigest()).toEqual(digest);
  });
});
