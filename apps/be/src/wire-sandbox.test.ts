import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { ADMIN_TOKEN_FILE } from "@talkide/service-kit";
import {
  sandboxSuiteCanRun,
  type FakeReply,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realClaudeCanRun, startWireBench, type WireBench } from "./test-support/wire-harness.ts";
import { storedRunsAsText, storedSessionsAsText } from "./test-support/engine-sessions.ts";

const canRun =
  realClaudeCanRun("the @talkide/be sandbox wire suite") &&
  (await sandboxSuiteCanRun("the @talkide/be sandbox wire suite"));

/** The provider key the service is given: a canary no command may read. */
const KEY = "sk-ant-api03-KEYCANARY-0123456789";
const OTHER_CANARY = "OTHER-PROJECT-CANARY-7d3f";
/** Proves the member's command did run: its output, which the command's text does not hold. */
const RAN = "ATTACK-RAN-42";

/** What one member asked the agent to run: everything finding 1 read, and more. */
function attack(dataDir: string, workspacesDir: string, otherWorkspace: string): string {
  return [
    "echo ATTACK-RAN-$((6 * 7))",
    "env",
    `cat ${join(dataDir, ADMIN_TOKEN_FILE)}`,
    `cat ${join(otherWorkspace, "canary.txt")}`,
    "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'",
    `grep -rs CANARY ${dataDir} ${workspacesDir} | head -20`,
    `ls -la ${dataDir} ${workspacesDir}`,
    `echo written > ${join(otherWorkspace, "planted.txt")}`,
  ].join("; ");
}

/** The tool result of `toolUseId` in a request (its content as JSON text), or null. */
function toolResultOf(request: RecordedRequest, toolUseId: string): string | null {
  const { messages } = request.body as {
    messages?: Array<{ content?: unknown }>;
  };
  for (const message of messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block["type"] === "tool_result" && block["tool_use_id"] === toolUseId)
        return JSON.stringify(block["content"]);
    }
  }
  return null;
}

/**
 * Issue 49, finding 1, replayed with the pinned CLI and a scripted model that does what the
 * member asks: under the README's example tool setting (`Bash(npm test:*)`, the agent rewrites
 * package.json's test script) and under `Bash(*)`. The provider key, the service's admin token
 * and another project's file appear in no tool result, no request body and no turn record.
 */
describe.skipIf(!canRun).each([
  { rules: "Bash(npm test:*),Bash(talkide-ports check)", viaNpmTest: true },
  { rules: "Bash(*)", viaNpmTest: false },
])("at the wire, with TALKIDE_CLAUDE_ALLOWED_TOOLS=$rules", ({ rules, viaNpmTest }) => {
  let bench: WireBench;
  let adminToken: string;
  const tmpdir = process.env["TMPDIR"];
  const homes: string[] = [];

  beforeAll(async () => {
    // The sandbox gives commands a /dev of their own: a workspace in /dev/shm (where the test
    // suites keep their files) would not exist for them. A disk directory, as in production.
    process.env["TMPDIR"] = "/var/tmp";
    bench = await startWireBench("split", {
      TALKIDE_CLAUDE_ALLOWED_TOOLS: rules,
      ANTHROPIC_API_KEY: KEY,
    });
    // Claude Code's sandbox (2.1.330) leaves empty files where it bound its protections
    // (~/.bash_profile, ~/.netrc, …): a home of the test's own, not the machine's.
    const home = join(bench.harness.dataDir, "..", `${basename(bench.harness.dataDir)}-home`);
    await mkdir(home, { recursive: true });
    homes.push(home);
    bench.harness.claudeEnv["HOME"] = home;
    adminToken = (await readFile(join(bench.harness.dataDir, ADMIN_TOKEN_FILE), "utf8")).trim();
    expect(adminToken.length).toBeGreaterThan(20);
  });
  afterAll(async () => {
    await bench.close();
    for (const home of homes) await rm(home, { recursive: true, force: true });
    if (tmpdir === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = tmpdir;
  });

  it("runs the member's command in the sandbox, which reads none of the secrets", async () => {
    const other = await bench.newProject();
    await writeFile(join(other.workspaceDir, "canary.txt"), `${OTHER_CANARY}\n`);
    const project = await bench.newProject();
    const command = attack(
      bench.harness.dataDir,
      join(bench.harness.dataDir, "workspaces"),
      other.workspaceDir,
    );
    bench.fake.setReply((request): FakeReply => {
      if (toolResultOf(request, "toolu_01RunIt") !== null) return { text: "Done." };
      if (viaNpmTest && toolResultOf(request, "toolu_01WritePkg") === null) {
        const pkg = JSON.stringify({ name: "x", private: true, scripts: { test: command } });
        return {
          content: [
            {
              type: "tool_use",
              id: "toolu_01WritePkg",
              name: "Write",
              input: { file_path: join(project.workspaceDir, "package.json"), content: pkg },
            },
          ],
        };
      }
      return {
        content: [
          {
            type: "tool_use",
            id: "toolu_01RunIt",
            name: "Bash",
            input: { command: viaNpmTest ? "npm test" : command, description: "As asked" },
          },
        ],
      };
    });
    const before = bench.fake.requests.length;
    await bench.turn(bench.anna, project.id, "Spusť, co jsem napsala.", `attack ${rules}`);
    const requests = bench.fake.requests.slice(before);
    const result = requests.map((r) => toolResultOf(r, "toolu_01RunIt")).find((r) => r !== null);
    // The command ran (inside the sandbox) and its output went to the model.
    expect(result).toContain(RAN);

    const secrets = [KEY, adminToken, OTHER_CANARY];
    for (const request of bench.fake.requests) {
      for (const secret of secrets) expect(request.rawBody).not.toContain(secret);
    }
    // Nothing the service recorded holds them either: events, turns and their runs, transcripts.
    const db = bench.harness.service.database.db;
    const records = await sql<{ text: string }>`
      SELECT e::text AS text FROM turn_events e
      UNION ALL SELECT t::text FROM turns t`.execute(db);
    const recorded = [
      ...records.rows.map((r) => r.text),
      ...(await storedRunsAsText(db)),
      ...(await storedSessionsAsText(db)),
    ].join("\n");
    expect(recorded).toContain(RAN);
    for (const secret of secrets) expect(recorded).not.toContain(secret);
    // And it wrote nothing into the other project.
    await expect(readFile(join(other.workspaceDir, "planted.txt"), "utf8")).rejects.toThrow();
  }, 300_000);
});
