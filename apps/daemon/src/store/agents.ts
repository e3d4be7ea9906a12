import { endSessionsOf, engineDb } from "@talkide/turn-engine";
import { sql } from "kysely";
import type { AgentRow, DaemonDb } from "../db/schema.ts";
import { agentOwner } from "../sessions/agent-sessions.ts";

export const SUPPORTED_RUNTIMES = ["claude-code"] as const;
export type RuntimeName = (typeof SUPPORTED_RUNTIMES)[number];

/** Agent ids reach the child's environment and the hub's handles: the contract's safe charset. */
export const AGENT_ID_PATTERN = /^[\p{L}\p{N}._-]{1,64}$/u;

export type RegisterOutcome = "created" | "unchanged" | "updated";

/**
 * Registers (binds) an agent to a runtime and a workspace directory. Registering the same
 * binding again changes nothing; a new workspace or runtime updates the binding and, since
 * the runtime's sessions live in terms of the old workspace, invalidates its sessions.
 */
export async function registerAgent(
  db: DaemonDb,
  input: { readonly id: string; readonly runtime: RuntimeName; readonly workspaceDir: string },
): Promise<{ readonly outcome: RegisterOutcome; readonly agent: AgentRow }> {
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("agents")
      .selectAll()
      .where("id", "=", input.id)
      .forUpdate()
      .executeTakeFirst();
    if (existing === undefined) {
      const agent = await trx
        .insertInto("agents")
        .values({
          id: input.id,
          runtime: input.runtime,
          workspace_dir: input.workspaceDir,
          runtime_meta: "{}",
          updated_at: new Date(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { outcome: "created" as const, agent };
    }
    if (existing.runtime === input.runtime && existing.workspace_dir === input.workspaceDir) {
      return { outcome: "unchanged" as const, agent: existing };
    }
    await invalidateLiveSessions(trx, input.id, "reset");
    const agent = await trx
      .updateTable("agents")
      .set({ runtime: input.runtime, workspace_dir: input.workspaceDir, updated_at: new Date() })
      .where("id", "=", input.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { outcome: "updated" as const, agent };
  });
}

export async function getAgent(db: DaemonDb, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom("agents").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function listAgents(db: DaemonDb): Promise<readonly AgentRow[]> {
  return db.selectFrom("agents").selectAll().orderBy("id").execute();
}

/** The workspaces of every other agent (no command of this agent may read them), sorted. */
export async function otherWorkspaces(db: DaemonDb, agentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("agents")
    .select("workspace_dir")
    .distinct()
    .where("id", "<>", agentId)
    .orderBy("workspace_dir")
    .execute();
  return rows.map((row) => row.workspace_dir);
}

/**
 * Resets an agent: every live session of it is invalidated, so each conversation's next
 * turn starts a fresh runtime session. Returns the sessions invalidated, or null when there
 * is no such agent.
 */
export async function resetAgent(
  db: DaemonDb,
  agentId: string,
): Promise<readonly { readonly id: string; readonly conversation_id: string }[] | null> {
  return db.transaction().execute(async (trx) => {
    const agent = await trx
      .updateTable("agents")
      .set({ reset_count: sql`reset_count + 1`, last_reset_at: new Date(), updated_at: new Date() })
      .where("id", "=", agentId)
      .returning("id")
      .executeTakeFirst();
    if (agent === undefined) return null;
    return invalidateLiveSessions(trx, agentId, "reset");
  });
}

/** Ends the agent's open sessions; returns those it ended. */
async function invalidateLiveSessions(
  trx: DaemonDb,
  agentId: string,
  reason: "reset",
): Promise<readonly { readonly id: string; readonly conversation_id: string }[]> {
  const ended = await endSessionsOf(engineDb(trx), agentOwner(agentId), reason);
  return ended.map((session) => ({ id: session.id, conversation_id: session.conversation ?? "" }));
}
