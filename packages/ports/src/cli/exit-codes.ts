/**
 * The CLI's exit codes. Scripts branch on these numbers, so they never change meaning.
 * 2 doubles as the runner protocol's "invalid input" code for `render-yml` and `parse-yml`.
 */
export const EXIT = {
  /** Done: shown, all ports free, port stopped or already free, file rendered or parsed. */
  ok: 0,
  /** An unexpected failure (a bug, or the OS refused a probe); the message says what. */
  internal: 1,
  /** `.talkide/project.yml` is missing, unreadable or invalid; runner input is invalid. */
  badFile: 2,
  /** `check`: at least one of the project's ports is busy. */
  busy: 3,
  /** `stop`: refused (platform port, port not in the file, holder not identifiable, protected process). */
  refused: 4,
  /** `stop`: the holder could not be signalled, or the port is still busy afterwards. */
  stopFailed: 5,
  /** Wrong command line: unknown command or option, a port number given as an argument, … */
  usage: 64,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
