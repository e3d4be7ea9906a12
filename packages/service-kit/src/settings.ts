import { z } from "zod";
import { parseEnvironment } from "./environment.ts";

/** pino's levels, and `silent`. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The settings every service has, each under the variable names of its own (kept as they
 * were released: `TALKIDE_PORT` the backend's, `TALKIDE_DAEMON_PORT`, `TALKIDE_HUB_PORT`).
 */
export interface ServiceVariables {
  /** The address it listens on. */
  readonly host: string;
  readonly port: string;
  /** Its data directory: the embedded database, the admin token. */
  readonly dataDir: string;
  /** A PostgreSQL server instead of the embedded database. */
  readonly databaseUrl: string;
  readonly logLevel: string;
}

export interface ServiceSettings {
  readonly host: string;
  /** 0 asks the operating system for a free port (tests, benchmarks). */
  readonly port: number;
  /** As given (relative to the working directory, or absolute): each service resolves it its way. */
  readonly dataDir: string;
  /** When set, a PostgreSQL server; otherwise the embedded database in the data directory. */
  readonly databaseUrl: string | null;
  readonly logLevel: LogLevel;
}

/** The shared settings' checks, one wording for every service (ConfigError names the variable). */
function sharedShape(
  variables: ServiceVariables,
  defaults: { readonly port: number; readonly dataDir: string },
): Record<string, z.ZodType> {
  return {
    [variables.host]: z.string().default("127.0.0.1"),
    [variables.port]: z.coerce
      .number({ error: "must be a port number" })
      .int("must be a port number")
      .min(0, "must be between 0 and 65535")
      .max(65535, "must be between 0 and 65535")
      .default(defaults.port),
    [variables.dataDir]: z.string().default(defaults.dataDir),
    [variables.databaseUrl]: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
      .optional(),
    [variables.logLevel]: z
      .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` })
      .default("info"),
  };
}

/**
 * A service's configuration from its environment (`parseEnvironment`'s rules: blank is unset,
 * values trimmed): the shared settings under the service's names, and the variables of
 * `schema`, its own. One `ConfigError` names every bad variable of both.
 */
export function parseServiceEnvironment<S extends z.ZodObject>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
  options: {
    readonly variables: ServiceVariables;
    readonly defaults: { readonly port: number; readonly dataDir: string };
    readonly readme?: string;
  },
): { readonly settings: ServiceSettings; readonly values: z.infer<S> } {
  const { variables } = options;
  const all = parseEnvironment(
    schema.extend(sharedShape(variables, options.defaults)),
    env,
    options.readme === undefined ? {} : { readme: options.readme },
  ) as Record<string, unknown>;
  const databaseUrl = all[variables.databaseUrl] as string | undefined;
  return {
    settings: {
      host: all[variables.host] as string,
      port: all[variables.port] as number,
      dataDir: all[variables.dataDir] as string,
      databaseUrl: databaseUrl ?? null,
      logLevel: all[variables.logLevel] as LogLevel,
    },
    values: all as z.infer<S>,
  };
}
