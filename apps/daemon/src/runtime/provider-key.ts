import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "@talkide/service-kit";

/** The file in the data directory that holds the provider key for the CLI (`apiKeyHelper`). */
export const PROVIDER_KEY_FILE = "provider-key";

/**
 * The variables Claude Code reads a provider key from, which the daemon moves to the file:
 * the first one set is the key (the CLI's `apiKeyHelper` sends it both as `x-api-key` and as
 * `Authorization: Bearer`, measured with 2.1.330), and none of them stays in the environment.
 */
const KEY_VARIABLES = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"] as const;

/**
 * A credential Claude Code would also take from its environment, which cannot be handed over
 * as a key: the daemon refuses to start with it rather than let every command read it.
 */
const REFUSED_CREDENTIALS = ["CLAUDE_CODE_OAUTH_TOKEN"] as const;

export interface ProviderKeyRoute {
  /** What the turns' environment is built from: the daemon's, without the key. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The file holding the key, for the sandbox settings' `apiKeyHelper`; null: no key given. */
  readonly keyFile: string | null;
}

/**
 * How the provider key reaches Claude Code and nothing it runs (issue 49). Every command an
 * agent runs inherits the CLI's environment, so the key is not in it: the daemon writes
 * `ANTHROPIC_API_KEY` (or else `ANTHROPIC_AUTH_TOKEN`) to `<dataDir>/provider-key` (0600; the
 * sandbox lets no command read the data directory) and the CLI reads it from there through its
 * `apiKeyHelper`, as the backend does. Without a key in the environment the file is removed (the CLI then uses what it is
 * logged in with, in its config dir, which no command can read either). The one place that
 * decides this: a gateway that hands each process a token of its own replaces it.
 */
export async function routeProviderKey(
  baseEnv: Readonly<Record<string, string | undefined>>,
  dataDir: string,
): Promise<ProviderKeyRoute> {
  const refused = REFUSED_CREDENTIALS.filter((name) => (baseEnv[name] ?? "") !== "");
  const [first, ...more] = refused.map((variable) => ({
    variable,
    message: `every command an agent runs would read it from its environment. Give the key as ANTHROPIC_API_KEY (the daemon hands it to Claude Code in a file no command can read), or log Claude Code in in its config dir (TALKIDE_CLAUDE_CONFIG_DIR), and unset ${variable}`,
  }));
  if (first !== undefined) throw new ConfigError([first, ...more], "apps/daemon/README.md");

  const keyFile = join(dataDir, PROVIDER_KEY_FILE);
  const key = KEY_VARIABLES.map((name) => baseEnv[name] ?? "").find((value) => value !== "");
  if (key === undefined) {
    await rm(keyFile, { force: true });
    return { env: baseEnv, keyFile: null };
  }
  await writeFile(keyFile, key, { mode: 0o600 });
  const env = Object.fromEntries(
    Object.entries(baseEnv).filter(
      ([name]) => !(KEY_VARIABLES as readonly string[]).includes(name),
    ),
  );
  return { env, keyFile };
}
