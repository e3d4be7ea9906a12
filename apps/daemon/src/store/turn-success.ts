import { type RawBuilder, sql } from "kysely";
import type { AgentRuntimeMeta, DaemonDb } from "../db/schema.ts";
import type { CliFallback, TurnTranscript } from "@talkide/claude-cli";
import { engineDb, recordSuccess } from "@talkide/turn-engine";
import type { TurnAccount } from "../scheduler/turn-account.ts";

export interface TurnSuccess {
  readonly turnId: string;
  readonly sessionId: string;
  readonly deliveryId: string;
  readonly agentId: string;
  readonly runtimeSessionId: string;
  /** What the turn used and cost (the gateway's figures, or the CLI's): `turn-account.ts`. */
  readonly account: TurnAccount;
  /** The CLI's fallback during the turn that makes the session's later requests heavier. */
  readonly cliFallback: CliFallback | null;
  /** The turn's last message: where the session's next turn resumes. */
  readonly resumeAtMessageId: string | null;
  readonly events: readonly unknown[];
  readonly agentMeta: AgentRuntimeMeta;
  /** The runtime's transcript after this turn, stored for whichever daemon resumes next. */
  readonly transcript: TurnTranscript | null;
}

/**
 * Records a successful turn in one statement, the engine's (`recordSuccess` of
 * @talkide/turn-engine: the session advanced to the runtime session the turn ran in and
 * charged its cost, the runtime's transcript stored whole or appended, the turn's run ended as
 * succeeded with its usage and cost, its running totals the session's after it), with the
 * daemon's own steps beside it: the turn completed with its events, its delivery completed, and
 * the agent's runtime facts updated. One statement is one atomic step (no delivery completed
 * without its turn, no session point without its transcript) and one round trip, which is most
 * of the daemon's per-turn cost.
 */
export async function recordTurnSuccess(db: DaemonDb, input: TurnSuccess): Promise<void> {
  await recordSuccess(
    engineDb(db),
    db,
    {
      sessionId: input.sessionId,
      turnId: input.turnId,
      point: { id: input.runtimeSessionId, at: input.resumeAtMessageId },
      costUsd: input.account.costUsd,
      transcript: input.transcript,
      run: { figures: input.account, cliFallback: input.cliFallback, exitCode: 0 },
    },
    { steps: (when) => daemonSteps(input, when) },
  );
}

/**
 * The daemon's steps of a success: `when` narrows each update (empty for none), so the engine
 * makes all of them depend on its own condition.
 */
function daemonSteps(input: TurnSuccess, when: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    finished_turn as (
      update turns
         set state = 'completed', events = ${JSON.stringify(input.events)}::jsonb, finished_at = now()
       where id = ${input.turnId} and state = 'running' ${when}
      returning id),
    completed_delivery as (
      update deliveries
         set state = 'completed', finished_at = now(), failure_reason = null, failure_message = null
       where id = ${input.deliveryId} and state = 'running' ${when}
      returning id),
    updated_agent as (
      update agents
         set runtime_meta = runtime_meta || ${JSON.stringify(input.agentMeta)}::jsonb, updated_at = now()
       where id = ${input.agentId} ${when}
      returning id)`;
}
