import { z } from "zod";
import { cacheMissSchema, cacheReuseSchema, cliFallbackSchema, tokenUsageSchema } from "./usage.ts";

/**
 * What the backend's JSON responses hold (see apps/be/API.md): the backend builds them to
 * these types and the console reads them as these types, so neither keeps a copy. Strict:
 * the backend's contract test parses its real answers with them, so a field added to an
 * answer but not here fails it.
 */

/** `GET /v1/me`: the caller's own profile, the only response that carries personal data. */
export const meSchema = z.strictObject({
  id: z.string(),
  /** Null for an account made by taking an invite's seat. */
  email: z.string().nullable(),
  displayName: z.string(),
  phone: z.string().nullable(),
  createdAt: z.string(),
});

export const projectSchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  url: z.string().nullable(),
  description: z.string().nullable(),
  backendLanguage: z.string(),
  backendFramework: z.string(),
  frontendLanguage: z.string(),
  frontendFramework: z.string(),
  workspaceDir: z.string(),
  ports: z.strictObject({ be: z.int(), fe: z.int() }),
  createdAt: z.string(),
});

/** A roster entry: never the member's email, name or phone. */
export const memberSchema = z.strictObject({
  id: z.string(),
  salutation: z.string(),
  teamBriefing: z.string().nullable(),
  role: z.enum(["owner", "member"]),
  createdAt: z.string(),
  /** True for the caller's own membership. */
  you: z.boolean(),
});

/** An invite: a pending seat in a project (`GET /v1/projects/:id/invites`, owners only). */
export const seatSchema = z.strictObject({
  id: z.string(),
  salutation: z.string(),
  teamBriefing: z.string().nullable(),
  role: z.enum(["owner", "member"]),
  /** The owner's contact note; never used to find an account. */
  email: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
});

/** A seat's one-time link: `code` (`tkiv_…`, shown once), the console path and the absolute URL. */
export const seatLinkSchema = z.strictObject({
  code: z.string(),
  path: z.string(),
  url: z.string(),
  expiresAt: z.string(),
});

/** `POST /v1/projects/:id/invites` and `POST …/invites/:seatId/link`. */
export const inviteSchema = z.strictObject({ seat: seatSchema, link: seatLinkSchema });

/** Who a browser is signed in as, when a link's preview is asked signed in (null: signed out). */
const signedInAsSchema = z.strictObject({ displayName: z.string() }).nullable();

/** `POST /v1/sign-in/preview`: whom a sign-in link signs in, without spending it. */
export const signInPreviewSchema = z.strictObject({
  account: z.strictObject({ displayName: z.string() }),
  expiresAt: z.string(),
  signedInAs: signedInAsSchema,
});

/** `POST /v1/sign-in`: the account this browser is signed in to now. */
export const signedInSchema = z.strictObject({
  user: z.strictObject({ id: z.string(), displayName: z.string() }),
});

/** `POST /v1/invites/preview`: what a seat's link offers, without spending it. */
export const invitePreviewSchema = z.strictObject({
  project: z.strictObject({ name: z.string() }),
  salutation: z.string(),
  role: z.enum(["owner", "member"]),
  expiresAt: z.string(),
  signedInAs: signedInAsSchema,
});

/** `POST /v1/invites/accept`: the project joined (and, for a new account, who it is). */
export const inviteAcceptedSchema = z.strictObject({
  user: z.strictObject({ id: z.string(), displayName: z.string() }).optional(),
  project: z.strictObject({ id: z.int() }),
});

/** `GET /v1/projects/:id/quarantine`: instruction files moved out of the workspace. */
export const quarantinedFileSchema = z.strictObject({
  movedAt: z.string(),
  path: z.string(),
  bytes: z.int(),
  /** Null for a link, a binary file or one over 64 KiB. */
  content: z.string().nullable(),
});

/** `GET /v1/me/sessions`: the caller's browser sessions. */
export const browserSessionSchema = z.strictObject({
  id: z.string(),
  userAgent: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  expiresAt: z.string(),
  current: z.boolean(),
});

/** `GET /v1/me/tokens`: the caller's API tokens, never their values. */
export const apiTokenSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string(),
});

/** A turn's record, as `POST …/messages` answers it. */
export const turnRecordSchema = z.strictObject({
  id: z.string(),
  projectId: z.int(),
  number: z.int(),
  /** The member who sent the message: the active writer of this turn. */
  memberId: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed", "stopped"]),
  resumed: z.boolean(),
  /** The Claude Code session the turn ran in, as the CLI reported it (also when it failed). */
  sessionId: z.string().nullable(),
  /** Why the turn did not continue the project's session (`agent_changed`, `unknown_session`). */
  sessionReset: z.string().nullable(),
  message: z.string(),
  resultText: z.string().nullable(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  /** What the turn cost (the gateway's exact figure); null while it is queued or running. */
  costUsd: z.number().nullable(),
  /** What its session has cost so far, this turn included; null for a turn in no session. */
  cumulativeCostUsd: z.number().nullable(),
  /** Answered by the local demo model (no ANTHROPIC_API_KEY): the costs are not real money. */
  demoModel: z.boolean(),
  /** The turn's tokens; null while it runs, or when it sent no request. */
  usage: tokenUsageSchema.nullable(),
  /** Why the turn's first request missed the prompt cache; null when unknown. */
  cacheMiss: cacheMissSchema.nullable(),
  /** The session's cache reuse so far, this turn included (cache read / all input tokens). */
  sessionCacheReuse: cacheReuseSchema,
  /** The CLI fell back during this turn and every later turn of the session is heavier. */
  cliFallback: cliFallbackSchema,
  /** Instruction files in the workspace the backend did not write, found before the spawn. */
  workspaceInstructionFiles: z.array(z.string()).readonly(),
  /** `warm` (the kept process), `cold` (a new one); null when none was started. */
  process: z.enum(["warm", "cold"]).nullable(),
  /** Why a cold turn could not run warm (`context_changed`, `idle_timeout`, …). */
  coldReason: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

/** What prepare-spawn recorded for a turn (its `context.written` event, older ones included). */
export const turnContextSchema = z.strictObject({
  layout: z.string(),
  files: z
    .array(
      z.strictObject({
        path: z.string(),
        changed: z.boolean(),
        bytes: z.int().nullable(),
        instruction: z.boolean().nullable(),
      }),
    )
    .readonly(),
  /** Bytes the changed instruction files add to a resumed turn's request. */
  resumeReminderBytes: z.int().nullable(),
});

/** A turn as `GET …/turns` and `GET …/turns/:turnId` answer it. */
export const turnSchema = turnRecordSchema.extend({
  /** `null` while queued, or when the turn failed before its context was written. */
  context: turnContextSchema.nullable(),
  /** The writer's salutation (also of a member who has since left the project). */
  author: z.string(),
  /** Who stopped the turn (their salutation), once someone asked it to stop; otherwise null. */
  stoppedBy: z.string().nullable(),
  /**
   * What happened on the way, in words, in order: the model API's retries, a busy port, a new
   * session, instruction files moved out of the workspace (`kind` is the event's name).
   */
  notes: z.array(z.strictObject({ kind: z.string(), message: z.string() })).readonly(),
});

/** `GET /v1/projects/:id/context`: every file the next spawn would get. */
export const contextFileSchema = z.strictObject({ path: z.string(), content: z.string() });

/** `GET /v1/projects/:id/ports`: a derived port and whether it is in use now. */
export const portStateSchema = z.strictObject({
  service: z.enum(["be", "fe"]),
  port: z.int(),
  state: z.enum(["free", "busy"]),
  /** The listening process (pid and executable name only), when the OS shows it. */
  holder: z.strictObject({ pid: z.int(), command: z.string() }).nullable(),
});

export type Me = z.infer<typeof meSchema>;
export type Project = z.infer<typeof projectSchema>;
export type Member = z.infer<typeof memberSchema>;
export type Seat = z.infer<typeof seatSchema>;
export type SeatLink = z.infer<typeof seatLinkSchema>;
export type Invite = z.infer<typeof inviteSchema>;
export type BrowserSession = z.infer<typeof browserSessionSchema>;
export type SignInPreview = z.infer<typeof signInPreviewSchema>;
export type InvitePreview = z.infer<typeof invitePreviewSchema>;
export type InviteAccepted = z.infer<typeof inviteAcceptedSchema>;
export type QuarantinedFile = z.infer<typeof quarantinedFileSchema>;
export type ApiToken = z.infer<typeof apiTokenSchema>;
export type TurnRecord = z.infer<typeof turnRecordSchema>;
export type TurnContext = z.infer<typeof turnContextSchema>;
export type Turn = z.infer<typeof turnSchema>;
export type ContextFile = z.infer<typeof contextFileSchema>;
export type PortState = z.infer<typeof portStateSchema>;
