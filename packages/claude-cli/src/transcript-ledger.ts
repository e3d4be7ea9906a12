import { MAX_TRANSCRIPT_PARTS, type TranscriptMark } from "./runtime-transcript.ts";
import {
  planTurnTranscriptWrite,
  sameMark,
  type TranscriptCursor,
  type TurnTranscript,
} from "./turn-transcript.ts";

/**
 * What this service instance last stored of each session's transcript, so the next successful
 * turn can store only the lines it added (a part) instead of the whole transcript, without
 * first reading back what is stored.
 *
 * An append is planned only when the runtime's file still begins with exactly what was stored
 * (same runtime session and folder, same length-prefix digest); the statement that appends it
 * also requires that the stored row still names the turn that wrote it last, so a transcript
 * another instance (or anything else) stored in between is never extended, it is written whole.
 * Losing this memory (a restart, eviction) only costs one full write.
 *
 * It also keeps, per session, where this instance last read the runtime's file (a cursor,
 * turn-transcript.ts), so the next turn reads only the lines it appended.
 */

/** Sessions remembered at most; the least recently stored is forgotten first. */
const MAX_REMEMBERED = 512;

interface StoredTranscript {
  readonly turnId: string;
  readonly mark: TranscriptMark;
  readonly parts: number;
  /** Where the runtime's file was read up to, when that read is what was stored. */
  readonly cursor: TranscriptCursor | null;
}

export interface TranscriptPlan {
  /** Lines to add after the stored transcript that turn `afterTurnId` left; null: write whole. */
  readonly append: { readonly afterTurnId: string; readonly delta: string } | null;
  /** The whole new transcript's mark (remembered once it is stored). */
  readonly mark: TranscriptMark;
  /** Where the read ended (remembered with the mark when they agree). */
  readonly cursor: TranscriptCursor | null;
}

/** One ledger per owner (a service instance's database handle): see TranscriptLedger.of. */
const ledgers = new WeakMap<object, TranscriptLedger>();

export class TranscriptLedger {
  readonly #stored = new Map<string, StoredTranscript>();

  /**
   * The ledger of `owner`, created on first use: what stores through one database handle
   * remember belongs to the instance that owns the handle, and goes with it.
   */
  static of(owner: object): TranscriptLedger {
    let ledger = ledgers.get(owner);
    if (ledger === undefined) {
      ledger = new TranscriptLedger();
      ledgers.set(owner, ledger);
    }
    return ledger;
  }

  /** The project folder of the transcript last stored for the session, if this ledger knows it. */
  projectDirOf(sessionId: string): string | null {
    return this.#stored.get(sessionId)?.mark.projectDir ?? null;
  }

  /** Where this instance last read the session's runtime file, if what it read was stored. */
  cursorOf(sessionId: string): TranscriptCursor | null {
    return this.#stored.get(sessionId)?.cursor ?? null;
  }

  plan(sessionId: string, transcript: TurnTranscript): TranscriptPlan {
    const known = this.#stored.get(sessionId);
    const stored = known === undefined || known.parts >= MAX_TRANSCRIPT_PARTS ? null : known;
    const { append, mark } = planTurnTranscriptWrite(stored?.mark ?? null, transcript);
    return {
      append:
        append === null || stored === null ? null : { afterTurnId: stored.turnId, delta: append },
      mark,
      cursor: transcript.cursor,
    };
  }

  /**
   * The transcript `turnId` stored: appended as `plan` said (a part, unless nothing was added),
   * or written whole (one part).
   */
  stored(sessionId: string, turnId: string, plan: TranscriptPlan, appended: boolean): void {
    const known = this.#stored.get(sessionId);
    const parts =
      appended && plan.append !== null
        ? (known?.parts ?? 0) + (plan.append.delta === "" ? 0 : 1)
        : 1;
    this.remember(sessionId, turnId, plan.mark, parts, plan.cursor);
  }

  /**
   * What a store planned without this ledger (from the stored row) left: the transcript as
   * `mark` says, written by `turnId`, in `parts` parts.
   */
  remember(
    sessionId: string,
    turnId: string,
    mark: TranscriptMark,
    parts: number,
    /** The read that produced it; kept only when it read exactly what was stored. */
    cursor: TranscriptCursor | null = null,
  ): void {
    const kept = cursor !== null && sameMark(cursor.mark, mark) ? cursor : null;
    this.#stored.delete(sessionId);
    this.#stored.set(sessionId, { turnId, mark, parts, cursor: kept });
    if (this.#stored.size > MAX_REMEMBERED) {
      const oldest = this.#stored.keys().next();
      if (oldest.done !== true) this.#stored.delete(oldest.value);
    }
  }
}
