/**
 * What a resumed turn of Claude Code 2.1.330 adds to its request when instruction files
 * (CLAUDE.md and the files it imports) changed since the session last read them, as measured
 * at the wire (WIRE-NOTES.md, "Resumed turn, a file changed"): one `<system-reminder>` text
 * block holding each changed file **whole**, trimmed at the end, under its absolute path. No
 * diff, so the cost of a change is the size of the file, not of the edit.
 */

const CHANGED_HEADER =
  "<system-reminder>\nInstruction files were re-read when this session started; these differ from their earlier copies — each replaces its earlier copy, and the instructions preamble above still applies:\n\n";
const FOOTER = "\n</system-reminder>\n";
const PROJECT_LABEL = "project instructions, checked into the codebase";

export interface ChangedInstructionFile {
  /** The file's absolute path: the CLI names every file by it, so its length counts. */
  readonly absolutePath: string;
  /** The file's content as written on disk. */
  readonly content: string;
}

/**
 * The text of the "changed" reminder a resumed turn sends for these project instruction
 * files, in the given order; `null` when none changed (the CLI then adds no reminder at all).
 */
export function changedInstructionReminder(
  files: readonly ChangedInstructionFile[],
): string | null {
  if (files.length === 0) return null;
  const sections = files.map(
    (file) =>
      // Claude Code trims with String#trimEnd (U+FEFF included): this mirrors its bytes.
      // eslint-disable-next-line no-restricted-syntax -- the CLI's rule, not the contract's.
      `Contents of ${file.absolutePath} (${PROJECT_LABEL}):\n\n${file.content.trimEnd()}`,
  );
  return `${CHANGED_HEADER}${sections.join("\n\n")}${FOOTER}`;
}

/** UTF-8 bytes of that reminder; 0 when nothing changed. */
export function changedInstructionReminderBytes(files: readonly ChangedInstructionFile[]): number {
  const text = changedInstructionReminder(files);
  return text === null ? 0 : Buffer.byteLength(text, "utf8");
}
