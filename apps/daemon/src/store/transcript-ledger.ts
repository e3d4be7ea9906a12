import { createHash } from "node:crypto";
import type { RuntimeTranscript } from "@talkide/claude-cli";

/**
 * What this daemon last stored of each session's transcript, so the next successful turn can
 * store only the lines it added (a part, migration 0005) instead of the whole transcript.
 *
 * An append is planned only when the runtime's file still begins with exactly what was stored
 * (same runtime session and folder, same length-prefix digest); the statement that appends it
 * also requires that the stored row still names the turn that wrote it last, so a transcript
 * another daemon (or anything else) stored in between is never extended, it is written whole.
 * Losing this memory (a restart, eviction) only costs one full write.
 */

/** Parts a transcript may gather before the next result writes it whole (and drops them). */
export const MAX_TRANSCRIPT_PARTS = 64;
/** Sessions remembered at most; the least recently stored is forgotten first. */
const MAX_REMEMBERED = 512;

interface StoredTranscript {
  readonly turnId: string;
  readonly runtimeSessionId: string;
  readonly projectDir: string;
  readonly length: number;
  /** sha256 of the whole stored transcript. */
  readonly digest: string;
  readonly parts: number;
}

export interface TranscriptPlan {
  /** Lines to add after the stored transcript that turn `afterTurnId` left; null: write whole. */
  readonly append: { readonly afterTurnId: string; readonly delta: string } | null;
  /** sha256 of the whole new transcript (remembered once it is stored). */
  readonly digest: string;
}

export class TranscriptLedger {
  readonly #stored = new Map<string, StoredTranscript>();

  plan(sessionId: string, transcript: RuntimeTranscript): TranscriptPlan {
    const known = this.#stored.get(sessionId);
    const { content } = transcript;
    const appendable =
      known !== undefined &&
      known.parts < MAX_TRANSCRIPT_PARTS &&
      known.runtimeSessionId === transcript.sessionId &&
      known.projectDir === transcript.projectDir &&
      content.length >= known.length;
    if (!appendable) return { append: null, digest: sha256(content) };
    // One pass over the content: the prefix's digest, then the whole one's.
    const hash = createHash("sha256").update(content.slice(0, known.length), "utf8");
    const prefix = hash.copy().digest("hex");
    const delta = content.slice(known.length);
    const digest = hash.update(delta, "utf8").digest("hex");
    if (prefix !== known.digest) return { append: null, digest };
    return { append: { afterTurnId: known.turnId, delta }, digest };
  }

  /** The transcript `turnId` stored (whole, or appended as `plan` said). */
  stored(
    sessionId: string,
    turnId: string,
    transcript: RuntimeTranscript,
    plan: TranscriptPlan,
    appended: boolean,
  ): void {
    const known = this.#stored.get(sessionId);
    this.#stored.delete(sessionId);
    this.#stored.set(sessionId, {
      turnId,
      runtimeSessionId: transcript.sessionId,
      projectDir: transcript.projectDir,
      length: transcript.content.length,
      digest: plan.digest,
      parts: appended ? (known?.parts ?? 0) + 1 : 0,
    });
    if (this.#stored.size > MAX_REMEMBERED) {
      const oldest = this.#stored.keys().next();
      if (oldest.done !== true) this.#stored.delete(oldest.value);
    }
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
