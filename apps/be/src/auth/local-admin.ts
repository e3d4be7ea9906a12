import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ADMIN_TOKEN_FILE, generateToken, loadOrCreateAdminToken } from "@talkide/service-kit";
import { trimWhiteSpace } from "@talkide/text";

/**
 * How `talkide-be` reaches the service that holds the database: the service writes its local
 * admin token (`<dataDir>/admin-token`, mode 0600, kept across restarts, as the daemon and the
 * hub do) and, while it listens, its address (`<dataDir>/service-url`, which also covers port 0).
 */
const SERVICE_URL_FILE = "service-url";

export function loadAdminToken(dataDir: string): Promise<string> {
  return loadOrCreateAdminToken(dataDir, () => generateToken("tkad_"));
}

/** Writes the address the CLI should use; the returned function removes it at shutdown. */
export async function announceServiceUrl(
  dataDir: string,
  url: string,
): Promise<() => Promise<void>> {
  const path = join(dataDir, SERVICE_URL_FILE);
  await writeFile(path, `${url}\n`);
  return () => rm(path, { force: true });
}

/** What the CLI finds in a data directory: both null when no service ever started there. */
export async function readLocalAdmin(
  dataDir: string,
): Promise<{ readonly url: string | null; readonly token: string | null }> {
  const read = async (name: string): Promise<string | null> => {
    const text = trimWhiteSpace(await readFile(join(dataDir, name), "utf8").catch(() => ""));
    return text === "" ? null : text;
  };
  return { url: await read(SERVICE_URL_FILE), token: await read(ADMIN_TOKEN_FILE) };
}
