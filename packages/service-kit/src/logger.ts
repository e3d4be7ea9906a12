import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

/**
 * Keys whose values must never reach a log line, wherever they appear (top level or one
 * level down): personal data, secrets, message bodies and anything the model sees or says.
 * The services log ids, never these values; redaction is the second line of defence for the
 * places where a request, header or row object could reach a log call. One list for every
 * service: a key one of them redacts is redacted by all.
 */
const SENSITIVE_KEYS = [
  "authorization",
  "token",
  "tokenHash",
  "token_sha256",
  "apiKey",
  "ANTHROPIC_API_KEY",
  "password",
  "email",
  "displayName",
  "display_name",
  "phone",
  "salutation",
  "teamBriefing",
  "team_briefing",
  "prompt",
  "text",
  "content",
  "resultText",
  "result_text",
  "body",
  "payload",
] as const;

const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  ...SENSITIVE_KEYS,
  ...SENSITIVE_KEYS.map((key) => `*.${key}`),
];

/**
 * An error as its type, code, constraint, message and stack, nothing else: database errors
 * carry the values of the failing statement (`detail: Key (email)=(…) already exists`,
 * `where: unnamed portal parameter $1 = '…'`), which can be personal data or message text,
 * and pino's default serializer would copy every property.
 */
function errorWithoutValues(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
    ...(typeof constraint === "string" ? { constraint } : {}),
    ...(error.stack === undefined ? {} : { stack: error.stack }),
  };
}

/**
 * A service's structured log (JSON lines on standard output by default). Standard output is
 * written synchronously: log lines and a start banner printed on the same output appear in
 * the order they were written, and no line is lost when the process exits.
 */
export function createLogger(
  /** The `name` of every line: which service wrote it ("talkide-be", "talkide-daemon"). */
  name: string,
  level: string,
  destination: DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger {
  return pino(
    {
      name,
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
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
