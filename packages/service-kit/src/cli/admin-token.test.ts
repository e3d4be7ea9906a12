import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "../test-support/temp-dir.ts";
import { resolveAdminToken } from "./admin-token.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

describe("resolveAdminToken", () => {
  it("takes --token, then the service's variable, then the file in its data directory", async () => {
    const dataDir = await makeTempDir();
    dirs.push(dataDir);
    await writeFile(join(dataDir, "admin-token"), "tha_file\n");
    const resolve = (token: string | undefined, env: Record<string, string>) =>
      resolveAdminToken({ token, env, variable: "SVC_ADMIN_TOKEN", dataDir, service: "hub" });
    expect(await resolve("tha_flag", { SVC_ADMIN_TOKEN: "tha_env" })).toBe("tha_flag");
    expect(await resolve("", { SVC_ADMIN_TOKEN: " tha_env " })).toBe("tha_env");
    expect(await resolve(undefined, { SVC_ADMIN_TOKEN: "  ", OTHER: "x" })).toBe("tha_file");
  });

  it("says where the service writes it, and what to do, when there is none", async () => {
    const dataDir = await makeTempDir();
    dirs.push(dataDir);
    await expect(
      resolveAdminToken({
        token: undefined,
        env: {},
        variable: "SVC_ADMIN_TOKEN",
        dataDir,
        service: "daemon",
      }),
    ).rejects.toMatchObject({
      code: "no_admin_token",
      message: `No admin token: ${join(dataDir, "admin-token")} does not exist yet (the daemon writes it on first start). Start the daemon, or pass --token.`,
    });
  });
});
