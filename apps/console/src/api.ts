/** The backend's JSON API as the console uses it (see apps/be/API.md). */

import { readableFieldMessage } from "./field-messages.ts";
// The shapes are the backend's own (its schemas in @talkide/be-api), never a copy.
import type {
  ApiToken,
  BrowserSession,
  CacheMiss,
  ContextFile,
  Invite,
  InviteAccepted,
  InvitePreview,
  Me,
  Member,
  PortState,
  Project,
  ProjectUsage,
  QuarantinedFile,
  Seat,
  SeatLink,
  SignInPreview,
  Turn,
  TurnRecord,
} from "@talkide/be-api";
import { projectIdOfPath } from "./project-access.ts";
import type { SignInCredential } from "./sign-in-code.ts";

export type {
  ApiToken,
  BrowserSession,
  CacheMiss,
  ContextFile,
  Invite,
  InviteAccepted,
  InvitePreview,
  Me,
  Member,
  PortState,
  Project,
  ProjectUsage,
  QuarantinedFile,
  Seat,
  SeatLink,
  SignInPreview,
  Turn,
  TurnRecord,
};

/** The code and words of a request that never reached the service (offline, service down). */
export const UNREACHABLE_CODE = "service_unreachable";
export const UNREACHABLE_MESSAGE =
  "The service cannot be reached right now. The console keeps trying; check your connection if this lasts.";

export type InviteAcceptance =
  { readonly join: "signed-in" } | { readonly join: "new-account"; readonly displayName: string };

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

/**
 * One same-origin request: the browser sends the session cookie itself (the console holds no
 * token) and the Origin header on state-changing requests. 204 answers give undefined.
 */
async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  } catch {
    // fetch rejects only when no answer came at all; its own text ("Failed to fetch") means
    // nothing to a person, so the error says what happened in words.
    throw new ApiError(0, UNREACHABLE_CODE, UNREACHABLE_MESSAGE, {});
  }
  if (!response.ok) throw await toApiError(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/**
 * The routes used while signed out (or to change who is signed in): their 401s are the
 * answer to show, never a sign that a session ended.
 */
export const publicApi = {
  me: (): Promise<Me> => send<Me>("GET", "/v1/me"),
  signIn: (credential: SignInCredential, switchAccount = false): Promise<unknown> =>
    send("POST", "/v1/sign-in", { ...credential, ...(switchAccount ? { switchAccount } : {}) }),
  previewSignIn: (code: string): Promise<SignInPreview> =>
    send<SignInPreview>("POST", "/v1/sign-in/preview", { code }),
  previewInvite: (code: string): Promise<InvitePreview> =>
    send<InvitePreview>("POST", "/v1/invites/preview", { code }),
  async acceptInvite(code: string, acceptance: InviteAcceptance): Promise<number> {
    const body = { code, ...acceptance };
    return (await send<InviteAccepted>("POST", "/v1/invites/accept", body)).project.id;
  },
};

/** What a signed-in request's failure can mean beyond itself. */
export interface AccessListener {
  /** 401: the session ended (signed out in another tab, expired, revoked). */
  sessionEnded(): void;
  /** 404 project_not_found for a project's route: you were removed from it, or it is gone. */
  projectGone(projectId: number): void;
}

/** The API as the signed-in console uses it; every failure is also told to `listener`. */
export class Api {
  private readonly listener: AccessListener;

  constructor(listener: AccessListener) {
    this.listener = listener;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    try {
      return await send<T>(method, path, body);
    } catch (error) {
      this.noticeAccessLoss(error, path);
      throw error;
    }
  }

  /** Tells the listener when `error` (of a request to `path`) means lost access. */
  noticeAccessLoss(error: unknown, path: string): void {
    if (!(error instanceof ApiError)) return;
    if (error.status === 401) this.listener.sessionEnded();
    const projectId = projectIdOfPath(path);
    if (error.code === "project_not_found" && projectId !== null) {
      this.listener.projectGone(projectId);
    }
  }

  me(): Promise<Me> {
    return this.request<Me>("GET", "/v1/me");
  }

  signOut(): Promise<void> {
    return send<undefined>("POST", "/v1/sign-out");
  }

  async sessions(): Promise<BrowserSession[]> {
    return (await this.request<{ sessions: BrowserSession[] }>("GET", "/v1/me/sessions")).sessions;
  }

  endSession(id: string): Promise<void> {
    return this.request<undefined>("DELETE", `/v1/me/sessions/${encodeURIComponent(id)}`);
  }

  async tokens(): Promise<ApiToken[]> {
    return (await this.request<{ tokens: ApiToken[] }>("GET", "/v1/me/tokens")).tokens;
  }

  /** The new token and its secret, which the API shows this once. */
  createToken(input: {
    name: string;
    expiresInDays?: number;
  }): Promise<{ token: ApiToken; secret: string }> {
    return this.request("POST", "/v1/me/tokens", input);
  }

  deleteToken(id: string): Promise<void> {
    return this.request<undefined>("DELETE", `/v1/me/tokens/${encodeURIComponent(id)}`);
  }

  async projects(): Promise<Project[]> {
    return (await this.request<{ projects: Project[] }>("GET", "/v1/projects")).projects;
  }

  async createProject(input: Record<string, unknown>): Promise<Project> {
    return (await this.request<{ project: Project }>("POST", "/v1/projects", input)).project;
  }

  /** Deletes a project with its turns, sessions and workspace (owners only). */
  async deleteProject(projectId: number): Promise<void> {
    await this.request<unknown>("DELETE", `/v1/projects/${projectId}`);
  }

  /** Instruction files moved out of the workspace before a turn (owners only). */
  async quarantine(projectId: number): Promise<QuarantinedFile[]> {
    const path = `/v1/projects/${projectId}/quarantine`;
    return (await this.request<{ files: QuarantinedFile[] }>("GET", path)).files;
  }

  async members(projectId: number): Promise<Member[]> {
    const path = `/v1/projects/${projectId}/members`;
    return (await this.request<{ members: Member[] }>("GET", path)).members;
  }

  async updateMe(projectId: number, input: Record<string, unknown>): Promise<Member> {
    const path = `/v1/projects/${projectId}/members/me`;
    return (await this.request<{ member: Member }>("PATCH", path, input)).member;
  }

  async setRole(projectId: number, memberId: string, role: Member["role"]): Promise<void> {
    const path = `/v1/projects/${projectId}/members/${encodeURIComponent(memberId)}`;
    await this.request("PATCH", path, { role });
  }

  /** Removes a member (owners), or yourself with `"me"` (leaving the project). */
  removeMember(projectId: number, memberId: string): Promise<void> {
    const path = `/v1/projects/${projectId}/members/${encodeURIComponent(memberId)}`;
    return this.request<undefined>("DELETE", path);
  }

  /** A seat for a person to take by its one-time link (owners). */
  invite(projectId: number, input: Record<string, unknown>): Promise<Invite> {
    return this.request<Invite>("POST", `/v1/projects/${projectId}/invites`, input);
  }

  async seats(projectId: number): Promise<Seat[]> {
    const path = `/v1/projects/${projectId}/invites`;
    return (await this.request<{ seats: Seat[] }>("GET", path)).seats;
  }

  /** A new link for the seat; the old one stops working. */
  newSeatLink(projectId: number, seatId: string): Promise<Invite> {
    const path = `/v1/projects/${projectId}/invites/${encodeURIComponent(seatId)}/link`;
    return this.request<Invite>("POST", path);
  }

  withdrawSeat(projectId: number, seatId: string): Promise<void> {
    const path = `/v1/projects/${projectId}/invites/${encodeURIComponent(seatId)}`;
    return this.request<undefined>("DELETE", path);
  }

  async turns(projectId: number): Promise<Turn[]> {
    const path = `/v1/projects/${projectId}/turns?limit=200`;
    return (await this.request<{ turns: Turn[] }>("GET", path)).turns;
  }

  async turn(projectId: number, turnId: string): Promise<Turn> {
    const path = `/v1/projects/${projectId}/turns/${encodeURIComponent(turnId)}`;
    return (await this.request<{ turn: Turn }>("GET", path)).turn;
  }

  /** Sends a message; the project's event stream brings the turn's progress to every tab. */
  async sendMessage(projectId: number, text: string): Promise<TurnRecord> {
    const path = `/v1/projects/${projectId}/messages`;
    return (await this.request<{ turn: TurnRecord }>("POST", path, { text })).turn;
  }

  /** Stops a queued or running turn (any member); it then ends as `stopped`. */
  async stopTurn(projectId: number, turnId: string): Promise<Turn> {
    const path = `/v1/projects/${projectId}/turns/${encodeURIComponent(turnId)}/stop`;
    return (await this.request<{ turn: Turn }>("POST", path)).turn;
  }

  /** A new turn with the message of a failed or stopped one, written by the caller. */
  async retryTurn(projectId: number, turnId: string): Promise<Turn> {
    const path = `/v1/projects/${projectId}/turns/${encodeURIComponent(turnId)}/retry`;
    return (await this.request<{ turn: Turn }>("POST", path)).turn;
  }

  /**
   * What the project, and you over all your projects, spent today and this month (UTC), with
   * the caps that apply.
   */
  usage(projectId: number): Promise<ProjectUsage> {
    return this.request<ProjectUsage>("GET", `/v1/projects/${projectId}/usage`);
  }

  async context(projectId: number): Promise<{ layout: string; files: ContextFile[] }> {
    return this.request("GET", `/v1/projects/${projectId}/context`);
  }

  async ports(projectId: number): Promise<PortState[]> {
    const path = `/v1/projects/${projectId}/ports`;
    return (await this.request<{ ports: PortState[] }>("GET", path)).ports;
  }
}
