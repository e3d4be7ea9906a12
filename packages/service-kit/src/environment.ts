import type { z } from "zod";

export class ConfigError extends Error {
  readonly code = "invalid_config";
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.name = "ConfigError";
    this.variable = variable;
  }
}

/**
 * Reads the variables `schema` names from `env` (an empty or blank value counts as unset,
 * values are trimmed). Throws `ConfigError` naming the first variable at fault.
 */
export function parseEnvironment<S extends z.ZodObject>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
): z.infer<S> {
  const present = Object.fromEntries(
    Object.keys(schema.shape).flatMap((key) => {
      const value = env[key];
      return value === undefined || value.trim() === "" ? [] : [[key, value.trim()]];
    }),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    throw new ConfigError(variable, `${variable}: ${issue?.message ?? "invalid value"}`);
  }
  return parsed.data;
}
