import { sql } from "kysely";
import type { AgentRuntimeMeta, DaemonDb } from "../db/schema.ts";
import type { RuntimeTranscript } from "@talkide/claude-cli";

/**
 * Records a successful turn in one statement: the turn completed with its events and cost,
 * its session advanced to the runtime session it ran in (with the runtime's transcript), its delivery completed, and the
 * agent's runtime facts updated. One statement is one atomic step (no delivery completed
 * without its turn) and one round trip, which is most of the daemon's per-turn cost.
 */
export async function recordTurnSuccess(
  db: DaemonDb,
  input: {
    readonly turnId: string;
    readonly sessionId: string;
    readonly deliveryId: string;
    readonly agentId: string;
    readonly runtimeSessionId: string;
    readonly costUsd: number | null;
    readonly cumulativeCostUsd: number | null;
    /** The session's cumulative cost after this turn (the runtime's, or the previous one). */
    readonly sessionCumulativeCostUsd: number | null;
    /** The turn's last message: where the session's next turn resumes. */
    readonly resumeAtMessageId: string | null;
    readonly events: readonly unknown[];
    readonly agentMeta: AgentRuntimeMeta;
    /** The runtime's transcript after this turn, stored for whichever daemon resumes next. */
    readonly transcript: RuntimeTranscript | null;
  },
): Promise<void> {
  await sql`
    with finished_turn as (
      update turns
         set state = 'completed', runtime_session_id = ${input.runtimeSessionId},
             failure_reason = null, failure_message = null, exit_code = 0,
             cost_usd = ${input.costUsd}::double precision,
             cumulative_cost_usd = ${input.cumulativeCostUsd}::double precision,
             events = ${JSON.stringify(input.events)}::jsonb, finished_at = now()
       where id = ${input.turnId} and state = 'running'
      returning id),
    advanced_session as (
      update sessions
         set runtime_session_id = ${input.runtimeSessionId},
             resume_at_message_id = ${input.resumeAtMessageId},
             cumulative_cost_usd = ${input.sessionCumulativeCostUsd}::double precision,
             turn_count = turn_count + 1, updated_at = now()
       where id = ${input.sessionId}
      returning id),
    stored_transcript as (
      insert into session_transcripts (session_id, runtime_session_id, project_dir, content, turn_id)
      select ${input.sessionId}::uuid, ${input.runtimeSessionId}, ${input.transcript?.projectDir ?? null}::text,
             ${input.transcript?.content ?? null}::text, ${input.turnId}::uuid
       where ${input.transcript?.content ?? null}::text is not null
      on conflict (session_id) do update
         set runtime_session_id = excluded.runtime_session_id, project_dir = excluded.project_dir,
             content = excluded.content, turn_id = excluded.turn_id, updated_at = now()
      returning session_id),
    completed_delivery as (
      update deliveries
         set state = 'completed', finished_at = now(), failure_reason = null, failure_message = null
       where id = ${input.deliveryId} and state = 'running'
      returning id)
    update agents
       set runtime_meta = runtime_meta || ${JSON.stringify(input.agentMeta)}::jsonb, updated_at = now()
     where id = ${input.agentId}`.execute(db);
}
