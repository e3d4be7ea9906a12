import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "@talkide/service-kit";
import { makeTempDir, removeDir } from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daemonCommand } from "./daemon-command.ts";

const WORKSPACE = fileURLToPath(new URL("../../../../", import.meta.url));

describe("the daemon the local loop starts", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir("talkide-hub-daemon-command-");
    for (const name of ["daemon.ts", "daemon.js", "talkide-daemon"])
      await writeFile(join(dir, name), "");
    await chmod(join(dir, "talkide-daemon"), 0o755);
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it("is the workspace's daemon by default: its sources from source, its build when built", () => {
    expect(daemonCommand({}, dir, true)).toEqual({
      command: process.execPath,
      args: [
        "--conditions=@talkide/source",
        join(WORKSPACE, "apps", "daemon", "src", "bin", "talkide-daemon.ts"),
      ],
    });
    const built = join(WORKSPACE, "apps", "daemon", "dist", "bin", "talkide-daemon.js");
    // Whether `dist` exists depends on whether this checkout was built.
    let command: unknown;
    try {
      command = daemonCommand({}, dir, false);
    } catch (error) {
      command = error;
    }
    if (command instanceof CliError) {
      expect({ code: command.code, message: command.message }).toEqual({
        code: "daemon_not_found",
        message: expect.stringContaining(built) as string,
      });
    } else {
      expect(command).toEqual({ command: process.execPath, args: [built] });
    }
  });

  it("is TALKIDE_HUB_DAEMON_BIN when set (relative to the working directory; blank is unset)", () => {
    const bin = (value: string) => daemonCommand({ TALKIDE_HUB_DAEMON_BIN: value }, dir, true);
    expect(bin("daemon.ts")).toEqual({
      command: process.execPath,
      args: ["--conditions=@talkide/source", join(dir, "daemon.ts")],
    });
    expect(bin(join(dir, "daemon.js"))).toEqual({
      command: process.execPath,
      args: [join(dir, "daemon.js")],
    });
    expect(bin("./talkide-daemon")).toEqual({ command: join(dir, "talkide-daemon"), args: [] });
    expect(bin("")).toEqual(daemonCommand({}, dir, true));
  });

  it("refuses a TALKIDE_HUB_DAEMON_BIN that does not exist, saying what to set", () => {
    expect(() => daemonCommand({ TALKIDE_HUB_DAEMON_BIN: "missing" }, dir, true)).toThrow(
      expect.objectContaining({
        code: "daemon_not_found",
        message: expect.stringContaining(
          `TALKIDE_HUB_DAEMON_BIN names ${join(dir, "missing")}, which does not exist`,
        ) as string,
      }) as Error,
    );
  });
});
