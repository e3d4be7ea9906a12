import {
  readTurnTranscript,
  TranscriptLedger,
  writeRuntimeTranscript,
  type TurnTranscript,
} from "@talkide/claude-cli";
import { loadTranscript, type EngineDb } from "./store/session-store.ts";

/**
 * The engine's tables own a session, not the machine that ran its last turn: after a
 * successful turn the CLI's transcript is read to be stored with the outcome, and before a
 * process is started to resume the session it is written back where the CLI reads it, over
 * whatever this machine holds (an older copy, or a failed turn's branch). A kept (warm)
 * process has it already; neither stage runs for it.
 */

/**
 * Before a cold resume: the stored transcript written where the CLI looks. False when nothing
 * is stored (a session from before stored transcripts: the machine's own copy, if any, is
 * resumed; without one the CLI reports an unknown session and the turn starts a new one) or
 * its names are not safe to write.
 */
export async function materialiseTranscript(
  db: EngineDb,
  claudeConfigDir: string,
  sessionKey: string,
): Promise<boolean> {
  const stored = await loadTranscript(db, sessionKey);
  if (stored === null) return false;
  return writeRuntimeTranscript(claudeConfigDir, stored);
}

/**
 * After a successful turn: the session's transcript as the CLI left it, to be stored with the
 * outcome (null when the CLI left none: then no other machine can resume the session).
 * `ledgerOwner` is the host's database object, whose transcript ledger remembers where this
 * instance last read the session's file: then only the lines the turn appended are read (and
 * the file is checked to have only grown), so the cost does not grow with the conversation;
 * otherwise the whole file, looked for in the folder it was found in last first.
 */
export function transcriptAfterTurn(
  ledgerOwner: object,
  claudeConfigDir: string,
  /** The host's session the turn continued; null for a session the turn started. */
  sessionKey: string | null,
  runtimeSessionId: string,
): Promise<TurnTranscript | null> {
  const ledger = TranscriptLedger.of(ledgerOwner);
  return readTurnTranscript(
    claudeConfigDir,
    runtimeSessionId,
    sessionKey === null ? null : ledger.cursorOf(sessionKey),
    sessionKey === null ? null : ledger.projectDirOf(sessionKey),
  );
}
