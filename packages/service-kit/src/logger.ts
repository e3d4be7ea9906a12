import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

/**
 * An error as its type, code, message and stack, nothing else: database errors carry the
 * values of the failing statement (`where: unnamed portal parameter $1 = '…'`, `detail`),
 * which can be message text, and pino's default serializer would copy every property.
 */
function errorWithoutValues(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const { code } = error as { code?: unknown };
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
    ...(error.stack === undefined ? {} : { stack: error.stack }),
  };
}

/**
 * A service's structured log (JSON lines). Message bodies, prompts and tokens are never
 * passed to it; the redaction below is the second line of defence for the places where a
 * request or header object could reach a log call.
 */
export function createLogger(
  /** The `name` of every line: which service wrote it ("talkide-daemon", "talkide-hub"). */
  name: string,
  level: string,
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      name,
      level,
      base: { pid: process.pid },
      redact: {
        paths: [
          "req.headers.authorization",
          "headers.authorization",
          "authorization",
          "token",
          "*.token",
          "prompt",
          "*.prompt",
          "text",
          "*.text",
          "body",
          "*.body",
          "payload",
          "*.payload",
        ],
        censor: "[redacted]",
      },
      serializers: {
        err: errorWithoutValues,
        error: errorWithoutValues,
        // Method and route only: the URL of an intake or API call carries ids, never content.
        req: (req: { method?: string; url?: string; id?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url?.split("?")[0],
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
    },
    destination,
  );
}
