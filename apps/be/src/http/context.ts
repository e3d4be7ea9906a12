import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import { ApiError } from "@talkide/service-kit";
import type { TurnRunner } from "../agent/turn-runner.ts";
import type { Gateway } from "@talkide/gateway";
import type { ContextLayout } from "../context/prepare.ts";
import type { DatabaseKind } from "../db/connect.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { requireMembership, type Membership } from "../domain/membership.ts";
import type { User } from "../domain/users.ts";
import type { Principal } from "./principal.ts";
import { notFound } from "../errors.ts";

export interface AppDependencies {
  readonly db: Kysely<DatabaseSchema>;
  readonly databaseKind: DatabaseKind;
  readonly runner: TurnRunner;
  readonly layout: ContextLayout;
  readonly workspacesDir: string;
  /** The built web console to serve at `/`; null serves a page saying how to build it. */
  readonly consoleDir?: string | null;
  /** The local admin token the `/admin/v1` routes take (see admin.ts); null disables them. */
  readonly adminToken?: string | null;
  readonly accounts: AccountSettings;
  /** Projects one user may own (TALKIDE_PROJECTS_PER_USER); unset: the default. */
  readonly projectsPerUser?: number;
  /** Where instruction files moved out of workspaces are kept (see agent/quarantine.ts). */
  readonly quarantineDir?: string;
  /** The LLM gateway's figures for `GET /v1/projects/:id/usage`. */
  readonly usage: UsageDependencies;
}

/** What the usage route reads: the instance's LLM gateway, and whether it answers as the demo. */
export interface UsageDependencies {
  readonly gateway: Gateway;
  readonly demoModel: boolean;
}

/** How people reach the service and how long their sign-ins last (config.ts). */
export interface AccountSettings {
  /** The address people open (links are built on it), e.g. `https://talkide.example.com`. */
  readonly publicUrl: string;
  /** A browser session unused this long has ended. */
  readonly sessionIdleHours: number;
  /** A new API token's lifetime unless its owner asks for another. */
  readonly tokenLifetimeDays: number;
}

export function currentUser(request: FastifyRequest): User {
  if (request.user === null) {
    throw new ApiError(401, "unauthorized", "Sign in, or send a valid API token.", {
      title: "Unauthorized",
    });
  }
  return request.user;
}

/** The signed-in caller and how they signed in. */
export function currentPrincipal(request: FastifyRequest): { user: User; principal: Principal } {
  const user = currentUser(request);
  if (request.principal === null) throw new Error("a signed-in request without its principal");
  return { user, principal: request.principal };
}

/** The absolute address of a console path (`/#code=…`) on the public URL. */
export function publicLink(deps: AppDependencies, path: string): string {
  return new URL(path, deps.accounts.publicUrl).href;
}

/** `:projectId` as a project id (1..999); anything else names no project. */
export function projectIdParam(request: FastifyRequest): number {
  const raw = (request.params as { projectId?: unknown }).projectId;
  const id = typeof raw === "string" && /^[1-9][0-9]{0,2}$/.test(raw) ? Number(raw) : null;
  if (id === null) throw notFound("project_not_found", "Project");
  return id;
}

export async function membershipOf(
  deps: AppDependencies,
  request: FastifyRequest,
): Promise<Membership> {
  return requireMembership(deps.db, projectIdParam(request), currentUser(request).id);
}
