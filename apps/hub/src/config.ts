import { resolve } from "node:path";
import { parseServiceEnvironment, type LogLevel } from "@talkide/service-kit";
import { z } from "zod";

/**
 * The hub's configuration, read from the environment once at start.
 *
 * The default port is next to the daemon's (7420) and, like it, neither one of the
 * platform's own ports (9090 backend, 5200 frontend) nor in the ranges derived for projects
 * (8091–9089, 5201–6199).
 */
export const DEFAULT_HUB_PORT = 7421;
export const DEFAULT_DAEMON_URL = "http://127.0.0.1:7420";

const httpUrl = (name: string) =>
  z.url({ protocol: /^https?$/, error: `${name} must be an http:// or https:// URL` });

const envSchema = z.object({
  TALKIDE_HUB_DAEMON_URL: httpUrl("TALKIDE_HUB_DAEMON_URL").default(DEFAULT_DAEMON_URL),
  TALKIDE_HUB_INTAKE_TOKEN: z.string().min(1).optional(),
});

export interface HubConfig {
  readonly host: string;
  /** 0 asks the operating system for a free port (tests). */
  readonly port: number;
  /** Absolute. Holds the embedded database and the admin token. */
  readonly dataDir: string;
  /** When set, PostgreSQL server; otherwise the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | null;
  /** The daemon whose intake gets the deliveries (its public HTTP API). */
  readonly daemonUrl: string;
  /**
   * A token of that daemon with the `intake` scope (`talkide-daemon token create`). Without
   * one the hub still serves, but deliveries wait in its outbox.
   */
  readonly intakeToken: string | null;
  readonly logLevel: LogLevel;
}

/** Reads the configuration; an empty variable counts as unset. Throws `ConfigError`. */
export function loadHubConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): HubConfig {
  const { settings, values: v } = parseServiceEnvironment(envSchema, env, {
    variables: {
      host: "TALKIDE_HUB_HOST",
      port: "TALKIDE_HUB_PORT",
      dataDir: "TALKIDE_HUB_DATA_DIR",
      databaseUrl: "TALKIDE_HUB_DATABASE_URL",
      logLevel: "TALKIDE_HUB_LOG_LEVEL",
    },
    defaults: { port: DEFAULT_HUB_PORT, dataDir: ".data/hub" },
  });
  return {
    ...settings,
    dataDir: resolve(cwd, settings.dataDir),
    daemonUrl: v.TALKIDE_HUB_DAEMON_URL.replace(/\/+$/, ""),
    intakeToken: v.TALKIDE_HUB_INTAKE_TOKEN ?? null,
  };
}
