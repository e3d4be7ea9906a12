import { randomBytes } from "node:crypto";
import { isSafeToken } from "@talkide/prompts";

/**
 * Names and ids of the hub. Everything that can reach a reply target or a command an agent
 * may copy (handles, group names, message and conversation ids) is in the contract's safe
 * charset, so targets always use names and never fall back to ids.
 */

export const SAFE_NAME_RULE = "1–64 Unicode letters or digits, '.', '_' or '-'";

/** NFC form of a handle or group name, or null when it is not in the safe charset. */
export function normalizeName(value: string): string | null {
  const nfc = value.normalize("NFC");
  return isSafeToken(nfc) ? nfc : null;
}

/** Handles and group names are unique and matched case-insensitively. */
export function nameKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/**
 * A message id: 8 hex digits, like the short ids of the seed's thread targets
 * (`#general:a1b2c3d4`). Uniqueness is the database's job (primary key); the caller retries.
 */
export function newMessageId(): string {
  return randomHex(4);
}

export function newGroupId(): string {
  return `g-${randomHex(5)}`;
}

export function newDmId(): string {
  return `d-${randomHex(5)}`;
}

/** A thread is identified by its root message, so its id is derived, never random. */
export function threadIdFor(rootMessageId: string): string {
  return `t-${rootMessageId}`;
}

export function newMemberId(): string {
  return `m-${randomHex(5)}`;
}

export function newAttachmentId(): string {
  return `a-${randomHex(8)}`;
}
