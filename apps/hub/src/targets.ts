import { isSafeToken } from "@talkide/prompts";
import { trimWhiteSpace } from "@talkide/text";

/**
 * Reply targets, exactly as the wake prompt writes them (contract 4.2):
 *
 * | target            | meaning                                                    |
 * |-------------------|------------------------------------------------------------|
 * | `#group`          | a group, by name (or by conversation id)                   |
 * | `#group:ROOT`     | the thread under message ROOT of that group                |
 * | `dm:@peer`        | the direct conversation between the caller and `peer`      |
 * | `dm:@peer:ROOT`   | the thread under message ROOT of that direct conversation  |
 * | `dm:ID`, `dm:ID:ROOT` | a direct conversation by id (the prompt's fallback)    |
 *
 * Every part is a safe token. Parsing is pure; resolving against the database happens in
 * `conversations.ts`.
 */
export type ParentTarget =
  | { readonly kind: "group"; readonly ref: string }
  | { readonly kind: "dm-peer"; readonly handle: string }
  | { readonly kind: "dm-id"; readonly id: string };

export interface ParsedTarget {
  readonly parent: ParentTarget;
  /** The thread's root message id, for thread targets. */
  readonly root: string | null;
}

export class TargetSyntaxError extends Error {
  readonly code = "invalid_target";
  constructor(message: string) {
    super(message);
    this.name = "TargetSyntaxError";
  }
}

const FORMS = "#group, #group:ROOT, dm:@peer or dm:@peer:ROOT";

export function parseTarget(input: string): ParsedTarget {
  const target = trimWhiteSpace(input.normalize("NFC"));
  if (target.startsWith("#")) {
    const [ref = "", root, extra] = target.slice(1).split(":");
    checkParts(target, [ref, root], extra);
    return { parent: { kind: "group", ref }, root: root ?? null };
  }
  if (target.startsWith("dm:")) {
    const rest = target.slice("dm:".length);
    const byHandle = rest.startsWith("@");
    const [ref = "", root, extra] = (byHandle ? rest.slice(1) : rest).split(":");
    checkParts(target, [ref, root], extra);
    const parent: ParentTarget = byHandle
      ? { kind: "dm-peer", handle: ref }
      : { kind: "dm-id", id: ref };
    return { parent, root: root ?? null };
  }
  throw new TargetSyntaxError(`A target has one of the forms ${FORMS}.`);
}

function checkParts(
  target: string,
  parts: readonly (string | undefined)[],
  extra: string | undefined,
): void {
  if (extra !== undefined) {
    throw new TargetSyntaxError(
      `The target has too many ':' parts; threads cannot be nested (use ${FORMS}).`,
    );
  }
  for (const part of parts) {
    if (part !== undefined && !isSafeToken(part)) {
      throw new TargetSyntaxError(
        `The target is not valid: names and ids in a target are 1–64 letters, digits, '.', '_' or '-' (forms: ${FORMS}).`,
      );
    }
  }
}

/** The canonical text of a target. */
export function formatTarget(parent: ParentTarget, root: string | null): string {
  const base =
    parent.kind === "group"
      ? `#${parent.ref}`
      : parent.kind === "dm-peer"
        ? `dm:@${parent.handle}`
        : `dm:${parent.id}`;
  return root === null ? base : `${base}:${root}`;
}
