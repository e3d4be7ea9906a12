import type { Turn, TurnContext, TurnEventName } from "@talkide/be-api";
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import type { TurnView } from "./turns.ts";

/** How the turn's Claude Code process started: a new process ("cold") or a kept-alive one. */
export type TurnProcess = "cold" | "warm";

/** The events whose `message` a person reads beside the turn (the Turn's `notes`). */
export const NOTE_EVENTS: readonly string[] = [
  "agent.api_retry",
  "port.busy",
  "session.reset",
  "workspace.instructions",
] satisfies TurnEventName[];

/** What prepare-spawn recorded for a turn, read back from its stored events. */
type TurnContextRecord = TurnContext;

/**
 * Adds to each turn what its `turn.started` and `context.written` events recorded at
 * prepare-spawn time. The events are the record: written once, when it happened, and read
 * here without reinterpreting anything.
 */
export async function withTurnContext(
  db: Kysely<DatabaseSchema>,
  turns: readonly TurnView[],
): Promise<Turn[]> {
  const ids = turns.map((t) => t.id);
  const rows =
    ids.length === 0
      ? []
      : await db
          .selectFrom("turn_events")
          .select(["turn_id", "type", "data"])
          .where("turn_id", "in", ids)
          .where("type", "in", ["turn.started", "context.written", ...NOTE_EVENTS])
          .orderBy("seq")
          .execute();
  const people = await writersAndStoppers(db, ids);
  const contexts = new Map<string, TurnContextRecord>();
  const notes = new Map<string, Array<{ kind: string; message: string }>>();
  const processes = new Map<string, TurnProcess>();
  for (const row of rows) {
    const data = (row.data ?? {}) as Record<string, unknown>;
    if (row.type === "turn.started" && (data.process === "cold" || data.process === "warm")) {
      processes.set(row.turn_id, data.process);
    }
    // The last one wins: a turn whose session was reset writes its context once all the same.
    if (row.type === "context.written") contexts.set(row.turn_id, contextRecord(data));
    if (NOTE_EVENTS.includes(row.type) && typeof data.message === "string") {
      const held = notes.get(row.turn_id) ?? [];
      held.push({ kind: row.type, message: data.message });
      notes.set(row.turn_id, held);
    }
  }
  return turns.map((turn) => ({
    ...turn,
    context: contexts.get(turn.id) ?? null,
    // The turn record says it since migration 0006; older turns have only their event.
    process: turn.process ?? processes.get(turn.id) ?? null,
    author: people.get(turn.id)?.author ?? "",
    stoppedBy: turn.status === "stopped" ? (people.get(turn.id)?.stoppedBy ?? null) : null,
    notes: notes.get(turn.id) ?? [],
  }));
}

/** Each turn's writer and, when someone stopped it, who: their salutations as they are now. */
async function writersAndStoppers(
  db: Kysely<DatabaseSchema>,
  ids: readonly string[],
): Promise<Map<string, { author: string; stoppedBy: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("turns")
    .innerJoin("members as writer", "writer.id", "turns.member_id")
    .leftJoin("members as stopper", "stopper.id", "turns.stopped_by")
    .select(["turns.id as id", "writer.salutation as author", "stopper.salutation as stopped_by"])
    .where("turns.id", "in", ids)
    .execute();
  return new Map(rows.map((r) => [r.id, { author: r.author, stoppedBy: r.stopped_by }]));
}

function contextRecord(data: Record<string, unknown>): TurnContextRecord {
  const files = Array.isArray(data.files) ? (data.files as Array<Record<string, unknown>>) : [];
  return {
    layout: typeof data.layout === "string" ? data.layout : "split",
    files: files.map((f) => ({
      path: String(f.path),
      changed: f.changed === true,
      bytes: typeof f.bytes === "number" ? f.bytes : null,
      instruction: typeof f.instruction === "boolean" ? f.instruction : null,
    })),
    resumeReminderBytes:
      typeof data.resumeReminderBytes === "number" ? data.resumeReminderBytes : null,
  };
}
