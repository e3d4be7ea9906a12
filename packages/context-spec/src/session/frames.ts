// The frames of the runner protocol's session mode (spec/runner-protocol.md#session-mode),
// shared by the runner and by implementations written in TypeScript. Every frame is an ASCII
// header line giving byte lengths, followed by exactly that many raw bytes: the payloads are
// never escaped, re-encoded or searched for a delimiter, so any bytes (a lone CR, a NUL,
// malformed UTF-8, a missing final line feed) travel unchanged.

/** Set in the implementation's environment when the runner offers a session. */
export const SESSION_ENV = "TALKIDE_CONFORMANCE_SESSION";
/** The value of SESSION_ENV: the version of the session mode the runner speaks. */
export const SESSION_VERSION = "1";
/** The first bytes an implementation that accepts the session writes to standard output. */
export const HANDSHAKE_LINE = `talkide-conformance session ${SESSION_VERSION}\n`;

const LINE_FEED = 0x0a;
const REQUEST_HEADER = /^case (0|[1-9][0-9]{0,9})$/u;
const ANSWER_HEADER = /^answer ([0-9]{1,3}) (0|[1-9][0-9]{0,9}) (0|[1-9][0-9]{0,9})$/u;

/** One case for the implementation: `case <n>\n` and the n bytes of the input. */
export function requestFrame(input: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(`case ${String(input.length)}\n`, "latin1"), input]);
}

/** One answer: `answer <exit> <stdout n> <stderr n>\n`, the stdout bytes, the stderr bytes. */
export function answerFrame(exitCode: number, stdout: Uint8Array, stderr: Uint8Array): Uint8Array {
  const header = `answer ${String(exitCode)} ${String(stdout.length)} ${String(stderr.length)}\n`;
  return Buffer.concat([Buffer.from(header, "latin1"), stdout, stderr]);
}

/** The byte length a request header announces, or null when the line is not one. */
export function parseRequestHeader(line: string): number | null {
  const match = REQUEST_HEADER.exec(line);
  return match === null ? null : Number(match[1]);
}

export interface AnswerHeader {
  readonly exitCode: number;
  readonly stdoutLength: number;
  readonly stderrLength: number;
}

/** The numbers of an answer header line, or null when the line is not one. */
export function parseAnswerHeader(line: string): AnswerHeader | null {
  const match = ANSWER_HEADER.exec(line);
  if (match === null) return null;
  const exitCode = Number(match[1]);
  if (exitCode > 255) return null;
  return { exitCode, stdoutLength: Number(match[2]), stderrLength: Number(match[3]) };
}

/** Index of the first line feed in `bytes`, or -1. */
export function lineEnd(bytes: Uint8Array): number {
  return bytes.indexOf(LINE_FEED);
}
