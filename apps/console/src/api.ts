/** The backend's JSON API as the console uses it (see apps/be/API.md). */

import { readableFieldMessage } from "./field-messages.ts";
// The shapes are the backend's own (its schemas in @talkide/be-api), never a copy.
import type { ContextFile, Invite, Me, Member, PortState, Project, Turn } from "@talkide/be-api";

export type { ContextFile, Invite, Me, Member, PortState, Project, Turn };

/** A one-time sign-in code (an invite's link) for an API token: works once (POST /v1/sign-in). */
export async function exchangeSignInCode(code: string): Promise<string> {
  const response = await fetch("/v1/sign-in", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code }),
  });
  if (!response.ok) throw await toApiError(response);
  return ((await response.json()) as { token: string }).token;
}

/**
 * A problem+json answer: `code` to branch on (and for bug reports), `detail` for people,
 * messages per field in words for the person filling in the form.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Field name (the last segment of the API's path, e.g. `salutation`) → message. */
  readonly fields: Readonly<Record<string, string>>;

  constructor(status: number, code: string, detail: string, fields: Record<string, string>) {
    super(detail);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

interface ProblemBody {
  code?: unknown;
  detail?: unknown;
  field?: unknown;
  errors?: unknown;
}

/** The field messages of a problem: `errors[]` of invalid_body, or `field` of the others. */
export function fieldErrorsOf(problem: ProblemBody): Record<string, string> {
  const fields: Record<string, string> = {};
  if (Array.isArray(problem.errors)) {
    for (const entry of problem.errors as Array<{ path?: unknown; message?: unknown }>) {
      const path = typeof entry.path === "string" ? entry.path : "";
      const name = path.split(".").at(-1) ?? "";
      if (name !== "" && typeof entry.message === "string") {
        fields[name] ??= readableFieldMessage(name, entry.message);
      }
    }
  }
  if (typeof problem.field === "string" && typeof problem.detail === "string") {
    fields[problem.field] = readableFieldMessage(problem.field, problem.detail);
  }
  return fields;
}

export async function toApiError(response: Response): Promise<ApiError> {
  let problem: ProblemBody = {};
  try {
    problem = (await response.json()) as ProblemBody;
  } catch {
    // Not problem+json (a proxy's page): the status says enough.
  }
  return new ApiError(
    response.status,
    typeof problem.code === "string" ? problem.code : `http_${response.status}`,
    typeof problem.detail === "string"
      ? problem.detail
      : `The service answered ${response.status}.`,
    fieldErrorsOf(problem),
  );
}

/** An instruction file found in a workspace that the service did not write, and moved out. */
export interface QuarantinedFile {
  readonly movedAt: string;
  readonly path: string;
  readonly bytes: number;
  readonly content: string | null;
}

export class Api {
  private readonly token: string;

  constructor(token: string) {
    this.token = token;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: this.headers(body === undefined ? {} : { "content-type": "application/json" }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw await toApiError(response);
    return (await response.json()) as T;
  }

  me(): Promise<Me> {
    return this.request<Me>("GET", "/v1/me");
  }

  async projects(): Promise<Project[]> {
    return (await this.request<{ projects: Project[] }>("GET", "/v1/projects")).projects;
  }

  async createProject(input: Record<string, unknown>): Promise<Project> {
    return (await this.request<{ project: Project }>("POST", "/v1/projects", input)).project;
  }

  /** Deletes a project with its turns, sessions and workspace (owners only). */
  async deleteProject(projectId: number): Promise<void> {
    const response = await fetch(`/v1/projects/${projectId}`, {
      method: "DELETE",
      headers: this.headers(),
    });
    if (!response.ok) throw await toApiError(response);
  }

  async members(projectId: number): Promise<Member[]> {
    const path = `/v1/projects/${projectId}/members`;
    return (await this.request<{ members: Member[] }>("GET", path)).members;
  }

  /** Adds a person by e-mail, creating their account if needed (owners only). */
  invite(projectId: number, input: Record<string, unknown>): Promise<Invite> {
    return this.request<Invite>("POST", `/v1/projects/${projectId}/invites`, input);
  }

  async updateMe(projectId: number, input: Record<string, unknown>): Promise<Member> {
    const path = `/v1/projects/${projectId}/members/me`;
    return (await this.request<{ member: Member }>("PATCH", path, input)).member;
  }

  async turns(projectId: number): Promise<Turn[]> {
    const path = `/v1/projects/${projectId}/turns?limit=200`;
    return (await this.request<{ turns: Turn[] }>("GET", path)).turns;
  }

  /** Instruction files moved out of the workspace before a turn (owners only). */
  async quarantine(projectId: number): Promise<QuarantinedFile[]> {
    const path = `/v1/projects/${projectId}/quarantine`;
    return (await this.request<{ files: QuarantinedFile[] }>("GET", path)).files;
  }

  async context(projectId: number): Promise<{ layout: string; files: ContextFile[] }> {
    return this.request("GET", `/v1/projects/${projectId}/context`);
  }

  async ports(projectId: number): Promise<PortState[]> {
    const path = `/v1/projects/${projectId}/ports`;
    return (await this.request<{ ports: PortState[] }>("GET", path)).ports;
  }
}
