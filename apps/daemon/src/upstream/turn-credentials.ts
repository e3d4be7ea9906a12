import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DaemonDb } from "../db/schema.ts";

/**
 * Turn credentials: what a turn's agent shows the message service (as `TICLAWK_TOKEN`) to
 * speak as itself, and what the service asks this daemon about (`POST
 * /v1/turn-credentials/verify`). A credential names its turn and carries an HMAC of the
 * turn id under a key kept in the data directory, so nothing is stored per turn; it is good
 * only while its turn runs, so nothing an agent leaves behind (a file, a background process)
 * can speak for it afterwards.
 */
export const TURN_CREDENTIAL_PREFIX = "tkt_";
const KEY_FILE = "turn-credential-key";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Reads the signing key, creating it (mode 0600) on first start. */
export async function loadOrCreateTurnCredentialKey(dataDir: string): Promise<Buffer> {
  const path = join(dataDir, KEY_FILE);
  const existing = (await readFile(path, "utf8").catch(() => "")).trim();
  if (existing !== "") return Buffer.from(existing, "base64url");
  const key = randomBytes(32);
  await writeFile(path, `${key.toString("base64url")}\n`, { mode: 0o600 });
  return key;
}

function mac(key: Buffer, turnId: string): Buffer {
  return createHmac("sha256", key).update(`turn:${turnId}`, "utf8").digest();
}

export function mintTurnCredential(key: Buffer, turnId: string): string {
  return `${TURN_CREDENTIAL_PREFIX}${turnId}.${mac(key, turnId).toString("base64url")}`;
}

export type TurnCredentialCheck =
  | {
      readonly active: true;
      readonly agentId: string;
      readonly turnId: string;
      readonly conversationId: string;
      readonly messageId: string;
    }
  | { readonly active: false; readonly reason: "unknown" | "turn_ended" };

export async function verifyTurnCredential(
  db: DaemonDb,
  key: Buffer,
  credential: string,
): Promise<TurnCredentialCheck> {
  const unknown = { active: false, reason: "unknown" } as const;
  if (!credential.startsWith(TURN_CREDENTIAL_PREFIX)) return unknown;
  const [turnId = "", signature = ""] = credential
    .slice(TURN_CREDENTIAL_PREFIX.length)
    .split(".", 2);
  if (!UUID.test(turnId)) return unknown;
  const expected = mac(key, turnId);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return unknown;
  const turn = await db
    .selectFrom("turns")
    .innerJoin("deliveries", "deliveries.id", "turns.delivery_id")
    .select(["turns.agent_id", "turns.conversation_id", "turns.state", "deliveries.message_id"])
    .where("turns.id", "=", turnId)
    .executeTakeFirst();
  if (turn === undefined) return unknown;
  if (turn.state !== "running") return { active: false, reason: "turn_ended" };
  return {
    active: true,
    agentId: turn.agent_id,
    turnId,
    conversationId: turn.conversation_id,
    messageId: turn.message_id,
  };
}
