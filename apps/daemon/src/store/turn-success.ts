import { type RawBuilder, sql } from "kysely";
import type { AgentRuntimeMeta, DaemonDb } from "../db/schema.ts";
import {
  allInputTokens,
  type CliFallback,
  type TokenUsage,
  type TurnTranscript,
} from "@talkide/claude-cli";
import { engineDb, recordSuccess, sessionTotalAfter } from "@talkide/turn-engine";
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
 * charged its cost, the runtime's transcript stored whole or appended), with the daemon's own
 * steps beside it: the turn completed with its events, usage and cost (its running total the
 * session's after it), its delivery completed, and the agent's runtime facts updated. One
 * statement is one atomic step (no delivery completed without its turn, no session point
 * without its transcript) and one round trip, which is most of the daemon's per-turn cost.
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
    },
    { steps: (when) => daemonSteps(input, when) },
  );
}

/**
 * The daemon's steps of a success: `when` narrows each update (empty for none), so the engine
 * makes all of them depend on its own condition.
 */
function daemonSteps(input: TurnSuccess, when: RawBuilder<unknown>): RawBuilder<unknown> {
  const { account } = input;
  const usage = account.usage;
  const totals = sessionTotals(input, usage);
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  return sql`
    finished_turn as (
      update turns
         set state = 'completed', runtime_session_id = ${input.runtimeSessionId},
             failure_reason = null, failure_message = null, exit_code = 0,
             cost_usd = ${account.costUsd}::double precision,
             -- Read before the statement's update of the session: the session's total after it.
             cumulative_cost_usd = ${sessionTotalAfter(input.sessionId, account.costUsd)},
             input_tokens = ${usage?.inputTokens ?? null}::int,
             cache_creation_input_tokens = ${usage?.cacheCreationInputTokens ?? null}::int,
             cache_read_input_tokens = ${usage?.cacheReadInputTokens ?? null}::int,
             output_tokens = ${usage?.outputTokens ?? null}::int,
             session_input_tokens = ${totals.input},
             session_cache_read_tokens = ${totals.cacheRead},
             usage_source = ${account.source}::text,
             requests = ${account.requests}::int,
             cache_write_5m_tokens = ${account.cacheWrite5mTokens}::int,
             cache_write_1h_tokens = ${account.cacheWrite1hTokens}::int,
             cache_miss = ${json(account.cacheMiss)}::jsonb,
             cache_miss_phrase = ${account.cacheMissPhrase}::text,
             cli_fallback = ${input.cliFallback},
             events = ${JSON.stringify(input.events)}::jsonb, finished_at = now()
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

/**
 * The session's running token totals with this turn: the latest earlier turn of the session
 * that carries them (one step back along turns_by_session, whatever the session's length),
 * plus this turn's; a session's turns from before migration 0006 count as none. Null when the
 * turn reported no tokens.
 */
function sessionTotals(
  input: TurnSuccess,
  usage: TokenUsage | null,
): { readonly input: RawBuilder<unknown>; readonly cacheRead: RawBuilder<unknown> } {
  if (usage === null) return { input: sql`null`, cacheRead: sql`null` };
  const previous = (column: "session_input_tokens" | "session_cache_read_tokens") =>
    sql`coalesce((select p.${sql.ref(column)} from turns p
                   where p.session_id = ${input.sessionId} and p.id <> ${input.turnId}
                     and p.${sql.ref(column)} is not null
                   order by p.started_at desc limit 1), 0)`;
  return {
    input: sql`${previous("session_input_tokens")} + ${allInputTokens(usage)}::bigint`,
    cacheRead: sql`${previous("session_cache_read_tokens")} + ${usage.cacheReadInputTokens}::bigint`,
  };
}
