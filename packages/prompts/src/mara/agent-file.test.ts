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
  test("is the manifest and the agent file, in that order", () => {
    const files = buildMaraPlugin();
    expect(files.map((file) => file.path)).toEqual([PLUGIN_MANIFEST_PATH, MARA_AGENT_FILE_PATH]);
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
