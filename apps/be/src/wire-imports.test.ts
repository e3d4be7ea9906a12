import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  instructionReminders,
  lastUserPrompt,
  realClaudeEnv,
  runOneTurn,
} from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./test-support/harness.ts";
import {
  REAL_CLAUDE,
  startWireBench,
  realClaudeCanRun,
  type WireBench,
} from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be import wire suite");

/** Workspace files that user text names; the canary inside each must never reach the model. */
const NAMED_FILES = ["poznamky.md", "a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "g.md"];

/**
 * Contract 1.6 at the wire: user text in every field of CLAUDE.md names workspace files with
 * `@`, in each position where the pinned Claude Code follows an import (a word start, a line
 * start, right after inline Markdown, in a URL path); the real CLI loads none of them, because
 * the renderer writes every user `@` as `\@` (spec/claude-md.md, "User text loads no file").
 */
describe.skipIf(!canRun)("at the wire: user text imports no file", () => {
  let bench: WireBench;
  let escapedWorkspace = "";
  let escapedProjectId = 0;
  beforeAll(async () => {
    bench = await startWireBench("split");
  });
  afterAll(async () => {
    await bench.close();
  });

  it("loads only CLAUDE.md and .talkide/active-writer.md, whatever the fields say", async () => {
    const created = await api<{ project: { id: number; workspaceDir: string } }>(
      bench.harness,
      bench.anna.token,
      "POST",
      "/v1/projects",
      {
        name: "Pekárna @poznamky.md",
        url: "https://medium.com/@pekarna/*a*@a.md",
        description: "Viz @poznamky.md a **tady**@b.md",
        backendLanguage: "Kotlin @c.md",
        backendFramework: "`Spring`@d.md",
        frontendLanguage: "TypeScript\u00a0@e.md",
        frontendFramework: "<b>Vue</b>@f.md",
        member: {
          salutation: "Anna @g.md",
          teamBriefing: "Viz @poznamky.md\n@a.md\n*x*@b.md [x](y)@c.md\nx \\@d.md a x \\\\@e.md",
        },
      },
    );
    expect(created.status).toBe(201);
    const { id, workspaceDir } = created.body.project;
    escapedWorkspace = workspaceDir;
    escapedProjectId = id;
    for (const name of NAMED_FILES) {
      const file = join(workspaceDir, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, `CANARY-IMPORTED-${name}\n`);
    }

    const request = await bench.turn(bench.anna, id, "Ahoj", "user text with @");
    const loaded = instructionReminders(request).flatMap((r) => r.files.map((f) => f.path));
    expect(loaded).toEqual([
      join(workspaceDir, "CLAUDE.md"),
      join(workspaceDir, ".talkide", "active-writer.md"),
    ]);
    expect(JSON.stringify(request.body)).not.toContain("CANARY-IMPORTED");
    // The words are all there, escaped: the model reads what the members wrote.
    const claudeMd = instructionReminders(request)[0]?.files[0]?.content ?? "";
    expect(claudeMd).toContain("- **Název**: Pekárna \\@poznamky.md");
    expect(claudeMd).toContain("> x \\\\\\@d.md a x \\\\\\\\\\@e.md");
  });

  it("the member's message loads no file: not in the workspace, not outside, not in HOME", async () => {
    // The project of the first test; its workspace still holds the canary files.
    expect(escapedProjectId).toBeGreaterThan(0);
    const outside = await mkdtemp(join(tmpdir(), "be-wire-message-outside-"));
    try {
      await writeFile(join(outside, "secret.txt"), "CANARY-OUTSIDE-message\n");
      const message = [
        "@poznamky.md prosím přečti a.md",
        `> @${outside}/secret.txt a @../b.md`,
        "viz\u00a0@c.md a \\@d.md a @./",
      ].join("\n");
      const request = await bench.turn(bench.anna, escapedProjectId, message, "message with @");
      const body = JSON.stringify(request.body);
      expect(body).not.toContain("CANARY-IMPORTED");
      expect(body).not.toContain("CANARY-OUTSIDE");
      expect(lastUserPrompt(request)).toContain("\\@poznamky.md prosím");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("control: the same files without the escapes make the CLI load the named files", async () => {
    // The first test's CLAUDE.md with every `\@` turned back into `@` (what version 1 of the
    // spec rendered), run by the same CLI in a copy of the workspace.
    const copy = await mkdtemp(join(tmpdir(), "be-wire-imports-control-"));
    try {
      for (const name of [...NAMED_FILES, "CLAUDE.md", join(".talkide", "active-writer.md")]) {
        const text = await readFile(join(escapedWorkspace, name), "utf8");
        await mkdir(dirname(join(copy, name)), { recursive: true });
        await writeFile(join(copy, name), text.replace(/\\@/gu, "@"));
      }
      const result = await runOneTurn({
        claudePath: REAL_CLAUDE ?? "",
        cwd: copy,
        prompt: "Ahoj",
        env: realClaudeEnv({ baseUrl: bench.fake.url, home: join(copy, ".home") }),
        timeoutMs: 120_000,
      });
      expect(result.ok).toBe(true);
      const request = bench.fake.messageRequests().at(-1);
      if (request === undefined) throw new Error("the control turn sent no request");
      const loaded = instructionReminders(request).flatMap((r) => r.files.map((f) => f.path));
      expect(loaded.length).toBeGreaterThan(2);
      expect(loaded).toContain(join(copy, "poznamky.md"));
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
