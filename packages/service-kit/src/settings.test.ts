import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./environment.ts";
import { parseServiceEnvironment } from "./settings.ts";

const VARIABLES = {
  host: "SVC_HOST",
  port: "SVC_PORT",
  dataDir: "SVC_DATA_DIR",
  databaseUrl: "SVC_DATABASE_URL",
  logLevel: "SVC_LOG_LEVEL",
};
const own = z.object({ SVC_WORKERS: z.coerce.number().int().default(2) });

const parse = (env: Record<string, string>) =>
  parseServiceEnvironment(own, env, {
    variables: VARIABLES,
    defaults: { port: 7000, dataDir: ".data/svc" },
    readme: "apps/svc/README.md",
  });

describe("parseServiceEnvironment", () => {
  it("reads the shared settings under the service's names, with defaults, beside its own", () => {
    expect(parse({})).toEqual({
      settings: {
        host: "127.0.0.1",
        port: 7000,
        dataDir: ".data/svc",
        databaseUrl: null,
        logLevel: "info",
      },
      values: expect.objectContaining({ SVC_WORKERS: 2 }) as unknown,
    });
    expect(
      parse({
        SVC_HOST: "::1",
        SVC_PORT: " 0 ",
        SVC_DATA_DIR: "/var/lib/svc",
        SVC_DATABASE_URL: "postgresql://u@db/x",
        SVC_LOG_LEVEL: "silent",
        SVC_WORKERS: "5",
        // Another service's variable means nothing here.
        TALKIDE_PORT: "1",
      }),
    ).toEqual({
      settings: {
        host: "::1",
        port: 0,
        dataDir: "/var/lib/svc",
        databaseUrl: "postgresql://u@db/x",
        logLevel: "silent",
      },
      values: expect.objectContaining({ SVC_WORKERS: 5 }) as unknown,
    });
  });

  it("names every bad variable, its own and the shared ones, never repeating a value", () => {
    let caught: unknown;
    try {
      parse({
        SVC_PORT: "70000",
        SVC_DATABASE_URL: "mysql://root:hunter2@db",
        SVC_LOG_LEVEL: "loud",
        SVC_WORKERS: "many",
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.issues.map((i) => i.variable).sort()).toEqual([
      "SVC_DATABASE_URL",
      "SVC_LOG_LEVEL",
      "SVC_PORT",
      "SVC_WORKERS",
    ]);
    expect(error.message).toContain("SVC_PORT: must be between 0 and 65535");
    expect(error.message).toContain(
      "SVC_DATABASE_URL: must start with postgres:// or postgresql://",
    );
    expect(error.message).toContain(
      "SVC_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent",
    );
    expect(error.message).toContain("see apps/svc/README.md");
    expect(error.message).not.toContain("hunter2");
  });
});
