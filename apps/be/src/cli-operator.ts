import { AdminClient, CliError, httpUrl } from "@talkide/service-kit";
import { trimWhiteSpace } from "@talkide/text";
import type { z } from "zod";
import { issueSignInCode } from "./auth/sign-in-codes.ts";
import { readLocalAdmin } from "./auth/local-admin.ts";
import type { Config } from "./config.ts";
import { openDatabase } from "./db/connect.ts";
import { migrateToLatest } from "./db/migrate.ts";
import type { addMemberSchema } from "./domain/members.ts";
import { createSeat, operatorMembership, type SeatView } from "./domain/seats.ts";
import {
  createToken,
  createUser,
  findUserIdByEmail,
  userNotFound,
  type NewUser,
} from "./domain/users.ts";

/** A one-time link as the CLI prints it: absolute, on the service's public URL. */
export interface OperatorLink {
  readonly url: string;
  readonly expiresAt: string;
}

/** What the CLI's user and invite commands need, wherever the database is. */
export interface Operator {
  /** Where the service answers (or will, once started): sign-in links are built on it. */
  readonly baseUrl: string;
  createUser(input: NewUser): Promise<{ userId: string; token: string }>;
  createToken(email: string): Promise<string>;
  invite(
    projectId: number,
    input: z.output<typeof addMemberSchema>,
  ): Promise<{ seat: SeatView; link: OperatorLink }>;
  /** A one-time sign-in link for an existing account (a person locked out, say). */
  signInLink(email: string): Promise<OperatorLink>;
  close(): Promise<void>;
}

const UNREACHABLE = {
  code: "be_unreachable",
  hint: "No talkide-be service answers at {url}. Start it (npm start), or leave out --url to work on the database directly.",
} as const;

/** The running service's admin API: it holds the database, so it does the work. */
function apiOperator(client: AdminClient): Operator {
  return {
    baseUrl: client.baseUrl,
    async createUser(input) {
      const { body } = await client.request<{ user: { id: string }; token: string }>(
        "POST",
        "/admin/v1/users",
        input,
      );
      return { userId: body.user.id, token: body.token };
    },
    async createToken(email) {
      const { body } = await client.request<{ token: string }>("POST", "/admin/v1/tokens", {
        email,
      });
      return body.token;
    },
    async invite(projectId, input) {
      const { body } = await client.request<{ seat: SeatView; link: OperatorLink }>(
        "POST",
        `/admin/v1/projects/${projectId}/invites`,
        input,
      );
      return body;
    },
    async signInLink(email) {
      const { body } = await client.request<{ link: OperatorLink }>(
        "POST",
        "/admin/v1/sign-in-links",
        { email },
      );
      return body.link;
    },
    close: () => Promise.resolve(),
  };
}

/** The database itself, when no service runs (the embedded one admits one process). */
async function databaseOperator(config: Config): Promise<Operator> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  const absolute = (path: string): string =>
    new URL(path, config.publicUrl ?? httpUrl(config.host, config.port)).href;
  return {
    baseUrl: config.publicUrl ?? httpUrl(config.host, config.port),
    async createUser(input) {
      const { user, token } = await createUser(db, input);
      return { userId: user.id, token };
    },
    createToken: (email) => createToken(db, email),
    async invite(projectId, input) {
      const membership = await operatorMembership(db, projectId);
      const { seat, link } = await createSeat(db, membership, input);
      return { seat, link: { url: absolute(link.path), expiresAt: link.expiresAt } };
    },
    async signInLink(email) {
      const userId = await findUserIdByEmail(db, email);
      if (userId === null) throw userNotFound();
      const code = await issueSignInCode(db, userId);
      return { url: absolute(code.path), expiresAt: code.expiresAt };
    },
    close: () => database.close(),
  };
}

export interface OperatorOptions {
  readonly url?: string | undefined;
  readonly token?: string | undefined;
}

/**
 * The running service when one answers, otherwise the database. `--url` insists on a
 * service (no fallback); without it the address comes from the data directory, where the
 * service writes it while it listens. The admin token comes from `--token`, then
 * `TALKIDE_BE_ADMIN_TOKEN`, then `<dataDir>/admin-token`.
 */
export async function connectOperator(
  config: Config,
  env: NodeJS.ProcessEnv,
  options: OperatorOptions,
): Promise<Operator> {
  const local = await readLocalAdmin(config.dataDir);
  const fromEnv = trimWhiteSpace(env["TALKIDE_BE_ADMIN_TOKEN"] ?? "");
  const token = options.token ?? (fromEnv === "" ? undefined : fromEnv) ?? local.token;
  const url = options.url ?? local.url;
  if (url === null) return databaseOperator(config);
  if (token === null) {
    throw new CliError(
      "no_admin_token",
      `No admin token for ${url}: the service writes ${config.dataDir}/admin-token on its first start. Pass --token, or set TALKIDE_DATA_DIR to the service's data directory.`,
    );
  }
  const api = apiOperator(new AdminClient(url, token, UNREACHABLE));
  if (options.url !== undefined) return api;
  // A service-url left by a process that was killed: nothing answers, so the database is free.
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return api;
  } catch {
    return databaseOperator(config);
  }
}
