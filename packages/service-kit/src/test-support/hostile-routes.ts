import { Writable } from "node:stream";
import { fc } from "@fast-check/vitest";
import { CANARY, hostileBodies, sendHostile } from "@talkide/strict-json/testing";
import { sql, type Kysely } from "kysely";
import { expect } from "vitest";
import { createLogger, type Logger } from "../logger.ts";

/** One write route and a body it accepts, from which the hostile bodies are made. */
export interface HostileRoute {
  readonly method: string;
  readonly path: string;
  readonly token: string;
  readonly valid: Parameters<typeof hostileBodies>[0];
  /** Codes a huge body may get instead of the generic ones (routes that allow more). */
  readonly hugeCodes?: readonly string[];
}

/** A debug logger whose lines are kept, to prove no body text reaches the log. */
export function capturingLogger(
  /** The service's name on every line ("talkide-daemon", "talkide-hub"). */
  name: string,
): { readonly logger: Logger; readonly logs: string[] } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") logs.push(line);
      callback();
    },
  });
  return { logger: createLogger(name, "debug", sink), logs };
}

/**
 * Every row of every table, as one comparable value. The work queue's own bookkeeping is left
 * out: its instance heartbeats, queue statistics and maintenance stamps change on a timer,
 * whatever a request does. Its jobs are in.
 */
export async function snapshotDatabase<Tables>(db: Kysely<Tables>): Promise<unknown> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
    WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'
      AND (table_schema || '.' || table_name) NOT IN ('pgboss.instance', 'pgboss.queue', 'pgboss.version')
    ORDER BY 1`.execute(db);
  const state: Record<string, unknown> = {};
  for (const { name } of tables) {
    const { rows } = await sql<{ digest: string | null }>`
      SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest
      FROM ${sql.table(name)} t`.execute(db);
    state[name] = rows[0]?.digest ?? null;
  }
  return state;
}

/**
 * Sends each route its run of hostile bodies over real HTTP: every one is refused with a
 * 4xx and a stable code, the database is unchanged, and no log line holds any body text.
 */
export async function expectHostileBodiesRefused(options: {
  readonly baseUrl: string;
  readonly routes: readonly HostileRoute[];
  readonly snapshot: () => Promise<unknown>;
  readonly logs: readonly string[];
}): Promise<void> {
  for (const route of options.routes) {
    const before = await options.snapshot();
    await fc.assert(
      fc.asyncProperty(hostileBodies(route.valid), async (hostile) => {
        const response = await sendHostile(`${options.baseUrl}${route.path}`, {
          method: route.method,
          token: route.token,
          hostile,
        });
        const body = response.json as { error?: { code?: string } };
        const where = `${route.method} ${route.path} ${hostile.kind}`;
        expect({ where, status: response.status >= 400 && response.status < 500 }).toEqual({
          where,
          status: true,
        });
        const codes =
          hostile.kind === "huge" && route.hugeCodes !== undefined
            ? route.hugeCodes
            : hostile.expectedCodes;
        expect({ where, code: body.error?.code }).toEqual({
          where,
          code: expect.toBeOneOf([...codes]) as string,
        });
        expect(response.text).not.toContain(CANARY);
      }),
      { numRuns: 25 },
    );
    expect({ route: route.path, state: await options.snapshot() }).toEqual({
      route: route.path,
      state: before,
    });
  }
  expect(options.logs.filter((line) => line.includes(CANARY))).toEqual([]);
  expect(options.logs.filter((line) => /"level":50/.test(line))).toEqual([]);
}

/**
 * Why an error response of a service breaks the kit's error shape — JSON with
 * exactly `{ "error": { code, message, path? } }`, a snake_case code — or null when it keeps it.
 */
export function errorShapeFault(response: {
  readonly contentType: string;
  readonly text: string;
}): string | null {
  if (!response.contentType.startsWith("application/json"))
    return `content type ${response.contentType}`;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return "a body that is not JSON";
  }
  const outer = body as { error?: Record<string, unknown> } | null;
  const error = outer?.error;
  if (
    typeof body !== "object" ||
    Object.keys(body as object).join() !== "error" ||
    typeof error !== "object" ||
    typeof error.code !== "string" ||
    !/^[a-z][a-z0-9_]*$/.test(error.code) ||
    typeof error.message !== "string" ||
    !(error.path === undefined || typeof error.path === "string") ||
    Object.keys(error).some((key) => !["code", "message", "path"].includes(key))
  ) {
    return `a body outside the error shape: ${response.text.slice(0, 200)}`;
  }
  return null;
}
