import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ADMIN_TOKEN_FILE } from "../data-dir.ts";
import { CliError } from "./admin-client.ts";

/**
 * The admin token a service's CLI sends: `--token`, else the service's environment variable
 * (`TALKIDE_ADMIN_TOKEN` the daemon's, `TALKIDE_HUB_ADMIN_TOKEN` the hub's), else the file the
 * service wrote in its data directory on first start.
 */
export async function resolveAdminToken(options: {
  readonly token: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly variable: string;
  readonly dataDir: string;
  /** What the refusal calls the service: "daemon", "hub". */
  readonly service: string;
}): Promise<string> {
  if (options.token !== undefined && options.token !== "") return options.token;
  const fromEnv = options.env[options.variable]?.trim() ?? "";
  if (fromEnv !== "") return fromEnv;
  const path = join(options.dataDir, ADMIN_TOKEN_FILE);
  const fromFile = (await readFile(path, "utf8").catch(() => "")).trim();
  if (fromFile !== "") return fromFile;
  throw new CliError(
    "no_admin_token",
    `No admin token: ${path} does not exist yet (the ${options.service} writes it on first start). Start the ${options.service}, or pass --token.`,
  );
}
