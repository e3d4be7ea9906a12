import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ADMIN_TOKEN_FILE, CliError } from "@talkide/service-kit";

/** What the daemon's CLI says when no daemon answers. */
export const DAEMON_UNREACHABLE = {
  code: "daemon_unreachable",
  hint: "No daemon answers at {url}. Start it with: talkide-daemon start (or pass --url).",
} as const;

/** The token from --token, then TALKIDE_ADMIN_TOKEN, then the daemon's data directory. */
export async function resolveAdminToken(options: {
  readonly token: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly dataDir: string;
}): Promise<string> {
  if (options.token !== undefined && options.token !== "") return options.token;
  const fromEnv = options.env["TALKIDE_ADMIN_TOKEN"];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv.trim();
  const path = join(options.dataDir, ADMIN_TOKEN_FILE);
  const fromFile = (await readFile(path, "utf8").catch(() => "")).trim();
  if (fromFile !== "") return fromFile;
  throw new CliError(
    "no_admin_token",
    `No admin token: ${path} does not exist yet (the daemon writes it on first start). Start the daemon, or pass --token.`,
  );
}
