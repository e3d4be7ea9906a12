import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtConsoleDir } from "./http/console.ts";
import { baseEnv, serve } from "./test-support/cli-process.ts";

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly reqId?: string;
  readonly turnId?: string;
}

/** The JSON log lines among what the service wrote on stdout. */
function logLines(stdout: string): LogLine[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

/**
 * The start banner: the lines right after the "talkide-be listening" log line, up to the next
 * log line (of a request or of the shutdown) or the end.
 */
function bannerOf(stdout: string): string[] {
  const lines = stdout.split("\n");
  const listening = lines.findIndex((line) => line.includes('"msg":"talkide-be listening"'));
  expect(listening).toBeGreaterThan(0);
  // Nothing of the start comes after the listening line but the banner.
  expect(lines.slice(0, listening).every((line) => line.startsWith("{"))).toBe(true);
  const rest = lines.slice(listening + 1);
  const end = rest.findIndex((line) => line.startsWith("{"));
  const banner = end === -1 ? rest : rest.slice(0, end);
  return banner.at(-1) === "" ? banner.slice(0, -1) : banner;
}

/**
 * `talkide-be serve` as `npm start` runs it, without ANTHROPIC_API_KEY: what a new user's
 * terminal shows. The start banner comes after every log line of the start, with the sign-in
 * lines at its end, and requests write no line at the default level.
 */
describe("talkide-be serve: a quiet terminal", () => {
  it("ends its start with the sign-in lines; requests log at debug only", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-start-output-"));
    const env = { ...baseEnv(dataDir) };
    delete env.ANTHROPIC_API_KEY;
    try {
      const first = await serve(env);
      const token = /export TALKIDE_TOKEN=(tkbe_\S+)/.exec(first.stdout())?.[1] ?? "";
      for (const path of ["/v1/me", "/v1/projects", "/v1/projects/1/turns", "/no-such-route"]) {
        await fetch(`${first.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      }
      // A message and its whole turn write no line at the default level either (issue 52).
      const turn = await fetch(`${first.url}/v1/projects/1/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify({ text: "Ahoj" }),
      });
      expect(await turn.text()).toContain("event: turn.succeeded");
      expect(await first.stop()).toBe(0);
      // Read after the process exited: every line it wrote is in.
      const stdout = first.stdout();
      const banner = bannerOf(stdout);
      // The demo-model warning first; the sign-in lines last.
      expect(banner[0]).toBe("!".repeat(72));
      expect(banner.join("\n")).toContain("LOCAL DEMO MODEL");
      expect(banner.join("\n")).toContain("not real money");
      const text = banner.join("\n");
      expect(text).toContain(
        `  export TALKIDE_TOKEN=${token}\n  export TALKIDE_URL=${first.url}\n`,
      );
      // The banner's link carries a one-time code, never the API token (issue 48).
      expect(text).not.toContain(`#token=`);
      expect(banner.at(-1)).toMatch(
        builtConsoleDir() === null
          ? /^TalkIDE web console: not built; run `pnpm --filter @talkide\/console run build`/
          : new RegExp(`^  ${first.url.replace(/[.]/g, "\\.")}/#code=tksi_[A-Za-z0-9_-]{43}$`),
      );
      // Four requests, no line about them at the default level (info).
      expect(logLines(stdout).filter((line) => line.reqId !== undefined)).toEqual([]);
      // (The fake CLI of this test keeps no transcript, which the service rightly warns about.)
      expect(
        logLines(stdout).filter((line) => line.turnId !== undefined && line.level <= 30),
      ).toEqual([]);
      expect(stdout).not.toContain("incoming request");

      // TALKIDE_LOG_LEVEL=debug brings them back; a later start prints no token.
      const again = await serve({ ...env, TALKIDE_LOG_LEVEL: "debug" });
      await fetch(`${again.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(await again.stop()).toBe(0);
      const requestLines = logLines(again.stdout()).filter((line) => line.reqId !== undefined);
      expect(requestLines.map((line) => [line.level, line.msg])).toEqual([
        [20, "incoming request"],
        [20, "request completed"],
      ]);
      const laterBanner = bannerOf(again.stdout());
      expect(laterBanner.join("\n")).not.toContain("TALKIDE_TOKEN");
      // Every start prints a fresh one-time sign-in link, last.
      expect(laterBanner.at(-1)).toMatch(
        builtConsoleDir() === null ? /^TalkIDE web console: / : /\/#code=tksi_/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
