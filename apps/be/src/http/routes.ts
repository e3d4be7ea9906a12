import type { Me } from "@talkide/be-api";
import { hasNoInputForClaude } from "@talkide/claude-cli";
import { PG_INTEGER_MAX, urlInteger } from "@talkide/strict-json";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sql } from "kysely";
import { z } from "zod";
import { ApiError } from "@talkide/service-kit";
import { listQuarantined, projectQuarantineDir } from "../agent/quarantine.ts";
import { renderContext } from "../context/prepare.ts";
import { failQueuedTurnsOfMember } from "../agent/turn-queue.ts";
import { memberIsCurrent, removeMember } from "../domain/member-removal.ts";
import { listMembers, updateMember, updateMemberSchema } from "../domain/members.ts";
import {
  createProject,
  createProjectSchema,
  deleteProject,
  listProjects,
  projectView,
} from "../domain/projects.ts";
import { isInvisible } from "../domain/look-alikes.ts";
import { requireMembership } from "../domain/membership.ts";
import { withTurnContext } from "../domain/turn-context.ts";
import { getTurn, listTurns, turnView, turnViewOf } from "../domain/turns.ts";
import { currentUser, membershipOf, type AppDependencies } from "./context.ts";
import { parseBody } from "./problem.ts";
import { uuidOrNull } from "../auth/tokens.ts";
import { principalIsLive } from "./auth.ts";
import { notFound } from "../errors.ts";
import { streamTurnEvents } from "./sse.ts";
import { streamProjectEvents } from "./project-stream.ts";
import { retryableMessage, stopTurn } from "../agent/turn-control.ts";

const messageSchema = z.strictObject({
  text: z
    .string()
    .max(100_000, "must be at most 100000 characters")
    // Blank: only white space and invisible characters (U+200B, U+FEFF, …), or without
    // input for Claude Code, which trims with String#trim: either way nothing to answer.
    .refine((t) => !isInvisible(t) && !hasNoInputForClaude(t), "must not be blank"),
});

const listTurnsQuery = z.object({
  limit: urlInteger({ min: 1, max: 200 }).default(50),
  // Compared with turns.number, a PostgreSQL integer.
  before: urlInteger({ min: 1, max: PG_INTEGER_MAX }).optional(),
});

/**
 * `:memberId` (`me` = the caller). Member ids are uuids, which compare ignoring case (as turn
 * ids do); anything else names no member (and must not reach a uuid cast).
 */
function memberIdParam(params: unknown, callerMemberId: string): string {
  const raw = (params as { memberId: string }).memberId;
  if (raw === "me") return callerMemberId;
  const id = uuidOrNull(raw);
  if (id === null) throw notFound("member_not_found", "Member");
  return id;
}

/** An open stream's reader is still a member, with a credential that still opens anything. */
function readerStillAllowed(
  deps: AppDependencies,
  request: FastifyRequest,
  memberId: string,
): () => Promise<boolean> {
  const { principal } = request;
  return async () =>
    (await memberIsCurrent(deps.db, memberId)) && (await principalIsLive(deps, principal));
}

function wantsEventStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? "").includes("text/event-stream");
}

export function registerRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const { db } = deps;

  app.get("/health", async () => {
    try {
      await sql`SELECT 1`.execute(db);
    } catch {
      throw new ApiError(
        503,
        "database_unavailable",
        "The service cannot reach its database; see the service log.",
        { title: "Database unavailable" },
      );
    }
    return { status: "ok", database: deps.databaseKind };
  });

  /** The caller's own profile: the only response that carries personal data. */
  app.get("/v1/me", (request): Me => {
    const user = currentUser(request);
    return {
      id: user.id,
      email: user.email,
      displayName: user.displayName,
      phone: user.phone,
      createdAt: user.createdAt,
    };
  });

  app.get("/v1/projects", async (request) => ({
    projects: await listProjects(db, currentUser(request).id),
  }));

  app.post("/v1/projects", async (request, reply) => {
    const input = parseBody(createProjectSchema, request.body);
    const project = await createProject(db, {
      userId: currentUser(request).id,
      workspacesDir: deps.workspacesDir,
      input,
      ...(deps.projectsPerUser === undefined ? {} : { projectsPerUser: deps.projectsPerUser }),
    });
    const membership = await requireMembership(db, project.id, currentUser(request).id);
    return reply
      .code(201)
      .header("location", `/v1/projects/${project.id}`)
      .send({ project, members: await listMembers(db, membership) });
  });

  app.get("/v1/projects/:projectId", async (request) => {
    const membership = await membershipOf(deps, request);
    return {
      project: projectView(membership.project),
      members: await listMembers(db, membership),
    };
  });

  /** An owner deletes the project with everything of it; its id is free again. */
  app.delete("/v1/projects/:projectId", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    await deleteProject(db, {
      projectId: membership.project.id,
      role: membership.role,
      workspaceDir: membership.project.workspace_dir,
      alsoDirs:
        deps.quarantineDir === undefined
          ? []
          : [projectQuarantineDir(deps.quarantineDir, membership.project.id)],
      removeQueuedWork: (trx) => deps.runner.removeProjectJobs(trx, membership.project.id),
    });
    return reply.code(204).send();
  });

  app.get("/v1/projects/:projectId/members", async (request) => {
    const membership = await membershipOf(deps, request);
    return { members: await listMembers(db, membership) };
  });

  // Nobody is added to a project without redeeming that project's invite link (issue 48).
  app.post("/v1/projects/:projectId/members", async (request) => {
    await membershipOf(deps, request);
    throw new ApiError(
      410,
      "invite_required",
      "People join a project through an invite link: POST /v1/projects/{id}/invites (the console's Team tab) and pass the link on.",
      { title: "Members join by invite" },
    );
  });

  app.delete("/v1/projects/:projectId/members/:memberId", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    const target = memberIdParam(request.params, membership.memberId);
    const removed = await removeMember(db, membership, target);
    await failQueuedTurnsOfMember(db, removed);
    return reply.code(204).send();
  });

  app.patch("/v1/projects/:projectId/members/:memberId", async (request) => {
    const membership = await membershipOf(deps, request);
    const patch = parseBody(updateMemberSchema, request.body);
    const target = memberIdParam(request.params, membership.memberId);
    return { member: await updateMember(db, membership, target, patch) };
  });

  /** Every file the next spawn would get, with the caller as the active writer. */
  app.get("/v1/projects/:projectId/context", async (request) => {
    const membership = await membershipOf(deps, request);
    const rendered = await renderContext(db, {
      projectId: membership.project.id,
      activeMemberId: membership.memberId,
      layout: deps.layout,
    });
    return { layout: deps.layout, activeMemberId: membership.memberId, files: rendered.files };
  });

  /**
   * Instruction files found in the workspace before a spawn that the backend did not render,
   * moved out of it so that Claude Code never loaded them: for the project's owners to review.
   */
  app.get("/v1/projects/:projectId/quarantine", async (request) => {
    const membership = await membershipOf(deps, request);
    if (membership.role !== "owner") {
      throw new ApiError(
        403,
        "owner_required",
        "Ask an owner of this project: only owners see the files moved out of its workspace.",
        { title: "Only an owner can see moved files" },
      );
    }
    return {
      files:
        deps.quarantineDir === undefined
          ? []
          : await listQuarantined(deps.quarantineDir, membership.project.id),
    };
  });

  /** One of those files, as raw bytes: `/context/CLAUDE.md`, `/context/.talkide/project.yml`. */
  app.get("/v1/projects/:projectId/context/*", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    const path = (request.params as { "*": string })["*"];
    const rendered = await renderContext(db, {
      projectId: membership.project.id,
      activeMemberId: membership.memberId,
      layout: deps.layout,
    });
    const file = rendered.files.find((f) => f.path === path);
    if (file === undefined) {
      throw new ApiError(
        404,
        "context_file_not_found",
        `The ${deps.layout} layout writes ${rendered.files.map((f) => f.path).join(", ")}.`,
        { title: "No such context file" },
      );
    }
    const type = path.endsWith(".yml") ? "application/yaml" : "text/markdown";
    return reply.type(`${type}; charset=utf-8`).send(file.content);
  });

  app.post("/v1/projects/:projectId/messages", async (request, reply: FastifyReply) => {
    const membership = await membershipOf(deps, request);
    const { text } = parseBody(messageSchema, request.body);
    // The active writer is the authenticated member who sent the message, never a field
    // of the request.
    const turn = await deps.runner.submit({
      project: membership.project,
      memberId: membership.memberId,
      prompt: text,
    });
    const location = `/v1/projects/${turn.project_id}/turns/${turn.id}`;
    if (wantsEventStream(request)) {
      // The stream's own response carries the headers set here (openEventStream).
      reply.header("location", location);
      await streamTurnEvents(request, reply, {
        db,
        runner: deps.runner,
        turnId: turn.id,
        status: 202,
        stillAllowed: readerStillAllowed(deps, request, membership.memberId),
      });
      return reply;
    }
    return reply
      .code(202)
      .header("location", location)
      .send({ turn: turnView(turn), events: `${location}/events` });
  });

  app.get("/v1/projects/:projectId/turns", async (request) => {
    const membership = await membershipOf(deps, request);
    const query = listTurnsQuery.safeParse(request.query);
    if (!query.success) {
      throw new ApiError(
        400,
        "invalid_query",
        "limit must be a whole number from 1 to 200 and before a turn number.",
        { title: "Invalid query" },
      );
    }
    const turns = await listTurns(db, membership.project.id, {
      limit: query.data.limit,
      beforeNumber: query.data.before,
    });
    return { turns: await withTurnContext(db, turns) };
  });

  app.get("/v1/projects/:projectId/turns/:turnId", async (request) => {
    const membership = await membershipOf(deps, request);
    const { turnId } = request.params as { turnId: string };
    const turn = await turnViewOf(db, await getTurn(db, membership.project.id, turnId));
    const [withContext] = await withTurnContext(db, [turn]);
    return { turn: withContext };
  });

  /** The project's one live conversation: every member's console follows it (issue 52). */
  app.get("/v1/projects/:projectId/events", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    await streamProjectEvents(request, reply, {
      db,
      notifications: deps.runner.notifications,
      projectId: membership.project.id,
      stillAllowed: readerStillAllowed(deps, request, membership.memberId),
    });
    return reply;
  });

  app.post("/v1/projects/:projectId/turns/:turnId/stop", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    const { turnId } = request.params as { turnId: string };
    const turn = await getTurn(db, membership.project.id, turnId);
    await stopTurn(db, membership, turn, deps.runner.hub.get(turn.id) !== undefined);
    const [view] = await withTurnContext(db, [
      await turnViewOf(db, await getTurn(db, membership.project.id, turn.id)),
    ]);
    return reply.code(202).send({ turn: view });
  });

  app.post("/v1/projects/:projectId/turns/:turnId/retry", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    const { turnId } = request.params as { turnId: string };
    const prompt = retryableMessage(await getTurn(db, membership.project.id, turnId));
    // Sent again by whoever retries it: they are the active writer of the new turn.
    const turn = await deps.runner.submit({
      project: membership.project,
      memberId: membership.memberId,
      prompt,
    });
    const [view] = await withTurnContext(db, [turnView(turn)]);
    return reply
      .code(202)
      .header("location", `/v1/projects/${turn.project_id}/turns/${turn.id}`)
      .send({ turn: view });
  });

  app.get("/v1/projects/:projectId/turns/:turnId/events", async (request, reply) => {
    const membership = await membershipOf(deps, request);
    const { turnId } = request.params as { turnId: string };
    const turn = await getTurn(db, membership.project.id, turnId);
    await streamTurnEvents(request, reply, {
      db,
      runner: deps.runner,
      turnId: turn.id,
      stillAllowed: readerStillAllowed(deps, request, membership.memberId),
    });
    return reply;
  });
}
