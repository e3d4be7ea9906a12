import { pino, type DestinationStream, type Logger } from "pino";

/**
 * Keys whose values must never reach a log line: personal data, secrets, and anything the
 * model sees or says. The code logs ids, never these values; redaction is the safety net.
 */
const SENSITIVE_KEYS = [
  "email",
  "displayName",
  "display_name",
  "phone",
  "token",
  "tokenHash",
  "token_sha256",
  "teamBriefing",
  "team_briefing",
  "salutation",
  "prompt",
  "text",
  "content",
  "resultText",
  "result_text",
  "authorization",
  "apiKey",
  "ANTHROPIC_API_KEY",
  "password",
] as const;

const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  ...SENSITIVE_KEYS,
  ...SENSITIVE_KEYS.map((key) => `*.${key}`),
];

/**
 * Errors are logged by name, code and message only. Database drivers attach the offending
 * values to errors (`detail: Key (email)=(…) already exists`), so the default serializer,
 * which copies every property, would leak them.
 */
export function safeErrorSerializer(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const record = error as Error & { code?: unknown; constraint?: unknown };
  const out: Record<string, unknown> = { type: error.name, message: error.message };
  if (typeof record.code === "string" || typeof record.code === "number") out.code = record.code;
  if (typeof record.constraint === "string") out.constraint = record.constraint;
  if (error.stack !== undefined) out.stack = error.stack;
  return out;
}

/**
 * The service's logger. Standard output is written synchronously (pino's default): log lines
 * and the start banner, which is printed on the same standard output, then appear in the order
 * they were written, so the banner really comes last. At the default level (`info`) that is a
 * few lines per turn; requests log at `debug` (see http/request-log.ts).
 */
export function createLogger(
  level: string,
  destination: DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger {
  return pino(
    {
      level,
      base: { service: "talkide-be" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      serializers: { err: safeErrorSerializer, error: safeErrorSerializer },
    },
    destination,
  );
}
