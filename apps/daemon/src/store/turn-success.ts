import { type RawBuilder, sql } from "kysely";
import type { AgentRuntimeMeta, DaemonDb } from "../db/schema.ts";
import {
  allInputTokens,
  type CliFallback,
  type TokenUsage,
  TranscriptLedger,
  type TurnTranscript,
} from "@talkide/claude-cli";
import type { TurnAccount } from "../scheduler/turn-account.ts";
import { sessionTotalAfter } from "./turns.ts";

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
 * Records a successful turn in one statement: the turn completed with its events, usage and
 * cost, its session advanced to the runtime session it ran in (with the runtime's transcript)
 * and charged the turn's cost (the session's total is the sum of its turns), its
 * delivery completed, and the agent's runtime facts updated. One statement is one atomic step
 * (no delivery completed without its turn, no session point without its transcript) and one
 * round trip, which is most of the daemon's per-turn cost.
 *
 * When this daemon stored the session's previous transcript and the runtime only appended to
 * it, the statement carries just the new lines (transcript-ledger.ts). That statement changes
 * nothing unless the stored transcript is still the one this daemon wrote last; when it is
 * not, the full statement writes the whole transcript instead. Either way everything is stored
 * by one statement.
 */
export async function recordTurnSuccess(db: DaemonDb, input: TurnSuccess): Promise<void> {
  const ledger = TranscriptLedger.of(db);
  const { transcript } = input;
  if (transcript === null) {
    await recordWhole(db, input);
    return;
  }
  const plan = ledger.plan(input.sessionId, transcript);
  const appended = plan.append !== null && (await recordAppended(db, input, plan.append));
  if (!appended) await recordWhole(db, input);
  ledger.stored(input.sessionId, input.turnId, plan, appended);
}

/**
 * What every success stores besides the transcript: the turn completed, the session advanced,
 * the delivery completed and the agent's runtime facts. `when` narrows each update (empty for
 * none), so a statement can make all of them depend on one condition.
 */
function successSteps(input: TurnSuccess, when: RawBuilder<unknown>): RawBuilder<unknown> {
  const { account } = input;
  const usage = account.usage;
  const totals = sessionTotals(input, usage);
  // Both read the session's total before this statement: the turn's is the session's after it.
  const total = sessionTotalAfter(sql.ref("sessions.cumulative_cost_usd"), account.costUsd);
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  return sql`
    finished_turn as (
      update turns
         set state = 'completed', runtime_session_id = ${input.runtimeSessionId},
             failure_reason = null, failure_message = null, exit_code = 0,
             cost_usd = ${account.costUsd}::double precision,
             cumulative_cost_usd = (select ${total} from sessions where id = ${input.sessionId}),
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
    advanced_session as (
      update sessions
         set runtime_session_id = ${input.runtimeSessionId},
             resume_at_message_id = ${input.resumeAtMessageId},
             cumulative_cost_usd = ${total},
             turn_count = turn_count + 1, updated_at = now()
       where id = ${input.sessionId} ${when}
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

/** The full statement: the transcript (when there is one) replaces the stored one and its parts. */
async function recordWhole(db: DaemonDb, input: TurnSuccess): Promise<void> {
  const content = input.transcript?.whole().content ?? null;
  await sql`
    with ${successSteps(input, sql``)},
    stored_transcript as (
      insert into session_transcripts (session_id, runtime_session_id, project_dir, content, turn_id)
      select ${input.sessionId}::uuid, ${input.runtimeSessionId}, ${input.transcript?.projectDir ?? null}::text,
             ${content}::text, ${input.turnId}::uuid
       where ${content}::text is not null
      on conflict (session_id) do update
         set runtime_session_id = excluded.runtime_session_id, project_dir = excluded.project_dir,
             content = excluded.content, turn_id = excluded.turn_id, updated_at = now()
      returning session_id),
    dropped_parts as (
      delete from session_transcript_parts
       where session_id = ${input.sessionId} and ${content}::text is not null)
    select 1`.execute(db);
}

/**
 * The same as `recordWhole` with the transcript's new lines appended as a part, all of it only
 * if the stored transcript is still the one `afterTurnId` wrote (locked for the statement).
 * False when it is not: then nothing changed.
 */
async function recordAppended(
  db: DaemonDb,
  input: TurnSuccess,
  append: { readonly afterTurnId: string; readonly delta: string },
): Promise<boolean> {
  const { rows } = await sql<{ appended: boolean }>`
    with previous as (
      select session_id from session_transcripts
       where session_id = ${input.sessionId} and turn_id = ${append.afterTurnId}
         and runtime_session_id = ${input.runtimeSessionId}
         and project_dir = ${input.transcript?.projectDir ?? null}::text
      for update),
    ${successSteps(input, sql`and exists (select 1 from previous)`)},
    stored_part as (
      insert into session_transcript_parts (session_id, seq, content, turn_id)
      select previous.session_id,
             coalesce((select max(p.seq) from session_transcript_parts p
                        where p.session_id = previous.session_id), 0) + 1,
             ${append.delta}::text, ${input.turnId}::uuid
        from previous
       where ${append.delta}::text <> ''
      returning seq),
    moved_transcript as (
      update session_transcripts
         set turn_id = ${input.turnId}, updated_at = now()
       where session_id = ${input.sessionId} and exists (select 1 from previous)
      returning session_id)
    select exists (select 1 from previous) as appended`.execute(db);
  return rows[0]?.appended === true;
}
