// The implementation side of the runner protocol's session mode, for implementations written
// in TypeScript: answer the handshake, then answer every case the runner sends until it
// closes standard input. A bin calls `sessionRequested()` first and, when it is false, keeps
// to the per-case protocol (read standard input to its end, answer once, exit).

import {
  answerFrame,
  HANDSHAKE_LINE,
  lineEnd,
  parseRequestHeader,
  SESSION_ENV,
  SESSION_VERSION,
} from "./frames.ts";

/** What the per-case protocol would have produced for one case. */
export interface SessionAnswer {
  /** The exit status a per-case run would have had: 0 (bytes), 2 (error line), else a crash. */
  readonly exitCode: number;
  readonly stdout: Uint8Array | string;
  readonly stderr: Uint8Array | string;
}

export type AnswerCase = (input: Uint8Array) => SessionAnswer | Promise<SessionAnswer>;

/** True when the runner offers a session this implementation can speak. */
export function sessionRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[SESSION_ENV] === SESSION_VERSION;
}

export interface SessionStreams {
  readonly input: AsyncIterable<Uint8Array>;
  readonly write: (bytes: Uint8Array) => void;
}

const processStreams = (): SessionStreams => ({
  input: process.stdin,
  write: (bytes) => process.stdout.write(bytes),
});

/**
 * Serves one session: the handshake, then one answer per request, in order. A case whose
 * `answer` throws is answered as the crash it would have been per case (exit status 1, the
 * message on stderr), and the session goes on. Resolves when the runner closes the input.
 */
export async function serveSession(
  answer: AnswerCase,
  streams: SessionStreams = processStreams(),
): Promise<void> {
  streams.write(Buffer.from(HANDSHAKE_LINE, "latin1"));
  for await (const input of requests(streams.input)) {
    const { exitCode, stdout, stderr } = await answerOrCrash(answer, input);
    streams.write(answerFrame(exitCode, bytesOf(stdout), bytesOf(stderr)));
  }
}

async function answerOrCrash(answer: AnswerCase, input: Uint8Array): Promise<SessionAnswer> {
  try {
    return await answer(input);
  } catch (error) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { exitCode: 1, stdout: "", stderr: `${text}\n` };
  }
}

/** The inputs of the requests on `source`, one per `case <n>\n` header and its n bytes. */
async function* requests(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending = Buffer.alloc(0);
  let wanted: number | null = null;
  for await (const chunk of source) {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (wanted === null) {
        const end = lineEnd(pending);
        if (end < 0) break;
        const header = pending.subarray(0, end).toString("latin1");
        wanted = parseRequestHeader(header);
        if (wanted === null)
          throw new Error(`session: expected "case <byte count>", got ${JSON.stringify(header)}`);
        pending = pending.subarray(end + 1);
      }
      if (pending.length < wanted) break;
      yield Uint8Array.prototype.slice.call(pending, 0, wanted);
      pending = pending.subarray(wanted);
      wanted = null;
    }
  }
  if (wanted !== null || pending.length > 0)
    throw new Error("session: standard input ended in the middle of a request");
}

function bytesOf(value: Uint8Array | string): Uint8Array {
  return typeof value === "string" ? Buffer.from(value, "utf8") : value;
}
