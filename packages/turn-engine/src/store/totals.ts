/** A session's running cost: the sum of its runs' costs, rounded as every host reads it. */
import { sql, type RawBuilder } from "kysely";

/**
 * The session's total after a turn that cost `costUsd` (null: the turn reported no cost), as
 * an expression a statement may use (the run's own running total).
 */
export function sessionTotalAfter(
  sessionId: string,
  costUsd: number | null,
): RawBuilder<number | null> {
  return sql<number | null>`(SELECT ${totalAfter(sql.ref("s.cumulative_cost_usd"), costUsd)}
    FROM engine_sessions s WHERE s.id = ${sessionId})`;
}

export function totalAfter(total: RawBuilder<unknown>, costUsd: number | null) {
  return costUsd === null
    ? sql<number | null>`${total}`
    : sql<
        number | null
      >`round((coalesce(${total}, 0) + ${costUsd}::double precision)::numeric, 10)::double precision`;
}
