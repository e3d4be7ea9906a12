import type { z } from "zod";

export interface ConfigIssue {
  readonly variable: string;
  readonly message: string;
}

/**
 * Bad configuration: every variable at fault with what is wrong, never its value (which may
 * be a secret). With `readme` the message also says where the variables are documented.
 */
export class ConfigError extends Error {
  readonly code = "invalid_config";
  readonly issues: readonly ConfigIssue[];
  /** The first variable at fault. */
  readonly variable: string;
  constructor(issues: readonly [ConfigIssue, ...ConfigIssue[]], readme?: string) {
    const list = issues.map((i) => `${i.variable}: ${i.message}`).join("; ");
    super(
      readme === undefined
        ? list
        : `Invalid configuration: ${list}. Fix these environment variables (see ${readme}, Configuration) and start again.`,
    );
    this.name = "ConfigError";
    this.issues = issues;
    this.variable = issues[0].variable;
  }
}

/**
 * Reads the variables `schema` names from `env` (an empty or blank value counts as unset,
 * values are trimmed). Throws `ConfigError` naming every variable at fault; `readme` is where
 * the service documents them.
 */
export function parseEnvironment<S extends z.ZodObject>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly readme?: string } = {},
): z.infer<S> {
  const present = Object.fromEntries(
    Object.keys(schema.shape).flatMap((key) => {
      const value = env[key];
      return value === undefined || value.trim() === "" ? [] : [[key, value.trim()]];
    }),
  );
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    variable: String(issue.path[0] ?? "environment"),
    message: issue.message,
  }));
  throw new ConfigError(
    [issues[0] ?? { variable: "environment", message: "invalid value" }, ...issues.slice(1)],
    options.readme,
  );
}
