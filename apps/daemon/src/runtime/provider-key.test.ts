import { existsSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "@talkide/service-kit";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "../test-support/harness.ts";
import { PROVIDER_KEY_FILE, routeProviderKey } from "./provider-key.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});
async function dataDir(): Promise<string> {
  const dir = await makeTempDir();
  dirs.push(dir);
  return dir;
}

describe("routeProviderKey", () => {
  it("moves ANTHROPIC_API_KEY out of the turns' environment into a file only the daemon reads", async () => {
    const dir = await dataDir();
    const route = await routeProviderKey(
      { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: "http://127.0.0.1:1", PATH: "/bin" },
      dir,
    );
    expect(route.keyFile).toBe(join(dir, PROVIDER_KEY_FILE));
    expect(route.env).toEqual({ ANTHROPIC_BASE_URL: "http://127.0.0.1:1", PATH: "/bin" });
    expect(await readFile(join(dir, PROVIDER_KEY_FILE), "utf8")).toBe("sk-ant-test");
    expect((await stat(join(dir, PROVIDER_KEY_FILE))).mode & 0o777).toBe(0o600);
  });

  it("takes ANTHROPIC_AUTH_TOKEN as the key when there is no ANTHROPIC_API_KEY, and withholds both", async () => {
    const dir = await dataDir();
    const token = await routeProviderKey({ ANTHROPIC_AUTH_TOKEN: "gw-token", PATH: "/bin" }, dir);
    expect(token.env).toEqual({ PATH: "/bin" });
    expect(await readFile(join(dir, PROVIDER_KEY_FILE), "utf8")).toBe("gw-token");
    const both = await routeProviderKey(
      { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_AUTH_TOKEN: "gw-token", PATH: "/bin" },
      dir,
    );
    expect(both.env).toEqual({ PATH: "/bin" });
    expect(await readFile(join(dir, PROVIDER_KEY_FILE), "utf8")).toBe("sk-ant-test");
  });

  it("without a key leaves the environment alone and removes a key an earlier start left", async () => {
    const dir = await dataDir();
    await writeFile(join(dir, PROVIDER_KEY_FILE), "sk-ant-old");
    const env = { PATH: "/bin", ANTHROPIC_API_KEY: "" };
    const route = await routeProviderKey(env, dir);
    expect(route).toEqual({ env, keyFile: null });
    expect(existsSync(join(dir, PROVIDER_KEY_FILE))).toBe(false);
  });

  it.each(["CLAUDE_CODE_OAUTH_TOKEN"])(
    "refuses %s, which every command would inherit, saying what to do instead",
    async (variable) => {
      const dir = await dataDir();
      const refused = routeProviderKey({ [variable]: "secret-value", PATH: "/bin" }, dir);
      await expect(refused).rejects.toBeInstanceOf(ConfigError);
      await expect(refused).rejects.toMatchObject({ code: "invalid_config", variable });
      await expect(refused).rejects.toThrow(/give the key as ANTHROPIC_API_KEY/i);
      await expect(refused).rejects.not.toThrow(/secret-value/);
      expect(existsSync(join(dir, PROVIDER_KEY_FILE))).toBe(false);
    },
  );
});
