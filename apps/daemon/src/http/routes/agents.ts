import { mkdir } from "node:fs/promises";
import { isAbsolute, normalize } from "node:path";
import { findIsolationBreaches, WorkspaceIsolationError } from "@talkide/claude-cli";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { DaemonDb } from "../../db/schema.ts";
import type { EventBus } from "../../events/bus.ts";
import {
  AGENT_ID_PATTERN,
  SUPPORTED_RUNTIMES,
  getAgent,
  listAgents,
  registerAgent,
  resetAgent,
} from "../../store/agents.ts";
import { engineDb, listSessions } from "@talkide/turn-engine";
import { agentOwner } from "../../sessions/agent-sessions.ts";
import { ApiError, parseInput } from "@talkide/service-kit";
import type { PeriodUsage } from "@talkide/gateway";
import { requireScope } from "../auth.ts";
import { agentView, sessionView } from "../views.ts";

const agentParams = z.object({
  agentId: z.string().regex(AGENT_ID_PATTERN, "must be 1–64 letters, digits, '.', '_' or '-'"),
});

/** Never repeats the id: an error names what to do, not what was sent. */
const NO_SUCH_AGENT =
  "No agent with this id is registered; talkide-daemon agent list shows those that are.";

/** An agent's spend and tokens today and this month; null when no model gateway runs. */
export type AgentUsage = (
  agentId: string,
) => Promise<{ readonly today: PeriodUsage; readonly month: PeriodUsage } | null>;

export function registerAgentRoutes(
  app: FastifyInstance,
  db: DaemonDb,
  events: EventBus,
  claudeConfigDir: string,
  usage: AgentUsage,
): void {
  const admin = { preHandler: requireScope(db, []) };

  app.get("/v1/agents", admin, async () => ({ agents: (await listAgents(db)).map(agentView) }));

  // The message service may ask whether an agent it is about to route to exists here.
  const adminOrIntake = { preHandler: requireScope(db, ["intake"]) };
  app.get("/v1/agents/:agentId", adminOrIntake, async (request) => {
    const { agentId } = parseInput(agentParams, request.params, "invalid_params");
    const agent = await getAgent(db, agentId);
    if (agent === undefined) throw new ApiError(404, "unknown_agent", NO_SUCH_AGENT);
    const sessions = await listSessions(engineDb(db), {
      owner: agentOwner(agentId),
      openOnly: true,
      limit: 1000,
    });
    return {
      agent: agentView(agent),
      liveSessions: sessions.map((session) => sessionView(session, agent.runtime)),
    };
  });

  // What an agent's turns cost today and this month, exact as the model gateway recorded them,
  // beside the operator's caps; null periods when no gateway runs (the CLI's own login).
  app.get("/v1/agents/:agentId/usage", admin, async (request) => {
    const { agentId } = parseInput(agentParams, request.params, "invalid_params");
    if ((await getAgent(db, agentId)) === undefined) {
      throw new ApiError(404, "unknown_agent", NO_SUCH_AGENT);
    }
    const periods = await usage(agentId);
    return {
      agentId,
      gateway: periods !== null,
      today: periods?.today ?? null,
      month: periods?.month ?? null,
    };
  });

  /** Registers or rebinds an agent; the same binding again is a no-op (200). */
  app.put("/v1/agents/:agentId", admin, async (request, reply) => {
    const { agentId } = parseInput(agentParams, request.params, "invalid_params");
    const body = parseInput(
      z.strictObject({
        runtime: z.enum(SUPPORTED_RUNTIMES).default("claude-code"),
        workspaceDir: z
          .string()
          .min(1)
          .max(4096)
          .refine((p) => isAbsolute(p) && !p.includes("\0"), "must be an absolute path"),
      }),
      request.body,
      "invalid_body",
    );
    const workspaceDir = normalize(body.workspaceDir);
    try {
      // The runtime starts in this directory; it must exist before the first turn.
      await mkdir(workspaceDir, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      throw new ApiError(
        400,
        "workspace_unusable",
        `The workspace directory cannot be created (${code}).`,
        { path: "workspaceDir" },
      );
    }
    // A workspace inside a tree with instruction files or another git work tree would give
    // the agent instructions nobody rendered (contract section 6): refused, naming the file.
    const breaches = await findIsolationBreaches({ workspace: workspaceDir, claudeConfigDir });
    if (breaches.length > 0) {
      throw new ApiError(
        400,
        "workspace_not_isolated",
        new WorkspaceIsolationError(breaches, `The workspace ${workspaceDir}`).message,
        { path: "workspaceDir" },
      );
    }
    const { outcome, agent } = await registerAgent(db, {
      id: agentId,
      runtime: body.runtime,
      workspaceDir,
    });
    if (outcome !== "unchanged") events.publish({ type: "agent.registered", agentId });
    return reply.code(outcome === "created" ? 201 : 200).send({ outcome, agent: agentView(agent) });
  });

  app.post("/v1/agents/:agentId/reset", admin, async (request) => {
    const { agentId } = parseInput(agentParams, request.params, "invalid_params");
    const invalidated = await resetAgent(db, agentId);
    if (invalidated === null) throw new ApiError(404, "unknown_agent", NO_SUCH_AGENT);
    for (const session of invalidated) {
      events.publish({
        type: "session.reset",
        sessionId: session.id,
        agentId,
        conversationId: session.conversation_id,
        reason: "reset",
      });
    }
    events.publish({ type: "agent.reset", agentId, invalidatedSessions: invalidated.length });
    return { agentId, invalidatedSessionIds: invalidated.map((s) => s.id) };
  });
}
