import type { FastifyReply, FastifyRequest } from "fastify";

/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/**
 * How often an open stream asks again whether its reader may still read (removed from the
 * project, signed out, token revoked): access ends within this, not when the stream would.
 */
const ACCESS_CHECK_MS = 2_000;

/** A server-sent event stream the route has taken over from Fastify. */
export interface EventStream {
  readonly write: (text: string) => void;
  /** Ends the stream (once; later calls do nothing). */
  readonly finish: () => void;
  readonly isFinished: () => boolean;
  /** Runs `cleanup` when the stream ends, whoever ends it (the reader, the route, access). */
  readonly onFinish: (cleanup: () => void) => void;
  /** Settles once the stream has ended. */
  readonly ended: Promise<void>;
}

/**
 * Takes the reply over as `text/event-stream` (with the headers already set on it, so the
 * service's security headers go out too): keep-alive comments, an access check every
 * ACCESS_CHECK_MS when `stillAllowed` is given, and one end however it comes. The turn's stream
 * and the project's stream (sse.ts, project-stream.ts) differ only in what they write.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { readonly status?: number; readonly stillAllowed?: () => Promise<boolean> } = {},
): EventStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(options.status ?? 200, {
    ...(reply.getHeaders() as Record<string, string | string[] | number>),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  const cleanups: Array<() => void> = [];
  let finished = false;
  let resolveEnded: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    resolveEnded = resolve;
  });
  const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
  const { stillAllowed } = options;
  const accessCheck =
    stillAllowed === undefined
      ? undefined
      : setInterval(() => {
          stillAllowed().then(
            (allowed) => {
              if (!allowed) finish();
            },
            () => {
              finish();
            },
          );
        }, ACCESS_CHECK_MS);
  const finish = (): void => {
    if (finished) return;
    finished = true;
    clearInterval(keepAlive);
    clearInterval(accessCheck);
    // A kept-alive socket serves many requests: its listener must not outlive this one.
    request.raw.socket.off("close", finish);
    res.off("close", finish);
    for (const cleanup of cleanups) cleanup();
    res.end();
    resolveEnded();
  };
  request.raw.socket.once("close", finish);
  res.once("close", finish);
  return {
    write: (text) => {
      if (!finished) res.write(text);
    },
    finish,
    isFinished: () => finished,
    onFinish: (cleanup) => {
      if (finished) cleanup();
      else cleanups.push(cleanup);
    },
    ended,
  };
}
