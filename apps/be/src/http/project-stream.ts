import type { EventNameOn, Turn, TurnEventName } from "@talkide/be-api";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sql, type Kysely } from "kysely";
import type { TurnEventNotifications } from "../agent/event-notifications.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { NOTE_EVENTS, withTurnContext } from "../domain/turn-context.ts";
import { turnViews } from "../domain/turns.ts";
import { openEventStream } from "./event-stream.ts";

/**
 * A project's one live conversation (issue 52): every event of the project, in the order the
 * database numbered them (migration 0015), as server-sent events that any member's open console
 * follows. Frames name what a chat needs, not the engine's internals:
 *
 * - `turn.changed {turn}`: a turn was queued (someone's message), started, got a note (a
 *   retry of the model API, a busy port, …) or ended (succeeded, failed, stopped): the turn as
 *   `GET …/turns/:id` shows it now;
 * - `turn.text {turnId, text}`: a block of Mara's answer as it arrives;
 * - `members.changed {}`: the roster changed;
 * - `ready {}`: everything after the reader's `Last-Event-ID` has been sent.
 *
 * Each frame's id is the project's event number: a reconnect with `Last-Event-ID` misses
 * nothing and repeats nothing, on whichever instance it lands, since a project's events commit
 * in the order of their numbers.
 */
const PAGE = 500;

/** The turn events that change what a chat shows of a turn (its state, or its notes). */
const TURN_STATE_EVENTS = new Set<string>([
  ...([
    "turn.queued",
    "turn.started",
    "turn.succeeded",
    "turn.failed",
    "turn.stopped",
  ] satisfies TurnEventName[]),
  ...NOTE_EVENTS,
]);

interface ProjectEventRow {
  readonly seq: string | number;
  readonly type: string;
  readonly data: unknown;
  readonly turn_id: string | null;
}

export interface ProjectStreamOptions {
  readonly db: Kysely<DatabaseSchema>;
  readonly notifications: TurnEventNotifications;
  readonly projectId: number;
  /** Whether the reader may still read; the stream ends once this says no. */
  readonly stillAllowed: () => Promise<boolean>;
}

/** `Last-Event-ID` (or `?after=`), the project event number the reader has seen. */
function resumeAfter(request: FastifyRequest): number {
  const header = request.headers["last-event-id"];
  const query = (request.query as { after?: unknown }).after;
  const raw = Array.isArray(header) ? header[0] : (header ?? query);
  const value = typeof raw === "string" && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : 0;
  return Number.isSafeInteger(value) ? value : 0;
}

async function readAfter(
  db: Kysely<DatabaseSchema>,
  projectId: number,
  after: number,
): Promise<ProjectEventRow[]> {
  const result = await sql<ProjectEventRow>`
    SELECT e.project_seq AS seq, e.type, e.data, e.turn_id
      FROM turn_events e JOIN turns t ON t.id = e.turn_id
     WHERE t.project_id = ${projectId} AND e.project_seq > ${after}
    UNION ALL
    SELECT p.project_seq AS seq, p.type, p.data, NULL AS turn_id
      FROM project_events p
     WHERE p.project_id = ${projectId} AND p.project_seq > ${after}
    ORDER BY seq
    LIMIT ${PAGE}`.execute(db);
  return result.rows;
}

async function turnsNow(
  db: Kysely<DatabaseSchema>,
  ids: readonly string[],
): Promise<Map<string, Turn>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom("turns").selectAll().where("id", "in", ids).execute();
  const turns = await withTurnContext(db, await turnViews(db, rows));
  return new Map(turns.map((turn) => [turn.id, turn]));
}

/** The frames of a page of rows: each with its number, in order; internals are skipped. */
async function framesOf(
  db: Kysely<DatabaseSchema>,
  rows: readonly ProjectEventRow[],
): Promise<string[]> {
  const changed = [
    ...new Set(
      rows.flatMap((row) =>
        row.turn_id !== null && TURN_STATE_EVENTS.has(row.type) ? [row.turn_id] : [],
      ),
    ),
  ];
  const turns = await turnsNow(db, changed);
  const frames: string[] = [];
  for (const row of rows) {
    const id = String(row.seq);
    if (row.turn_id !== null && TURN_STATE_EVENTS.has(row.type)) {
      const turn = turns.get(row.turn_id);
      if (turn === undefined) continue;
      // The record says running only once the process is recorded, a moment after its
      // `turn.started`: the event is the truth of that moment.
      const started = row.type === "turn.started" && turn.status === "queued";
      frames.push(
        frame(id, "turn.changed", { turn: started ? { ...turn, status: "running" } : turn }),
      );
    } else if (row.turn_id !== null && row.type === "agent.text") {
      const text = (row.data as { text?: unknown }).text;
      if (typeof text === "string")
        frames.push(frame(id, "turn.text", { turnId: row.turn_id, text }));
    } else if (row.turn_id === null && row.type.startsWith("member.")) {
      frames.push(frame(id, "members.changed", {}));
    } else {
      // Not for the chat (context written, tool use, …): only the reader's place moves on.
      frames.push(`id: ${id}\n\n`);
    }
  }
  return frames;
}

function frame(id: string, event: EventNameOn<"project">, data: unknown): string {
  // JSON never contains a raw line break, so one data line carries the whole event.
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function streamProjectEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  options: ProjectStreamOptions,
): Promise<void> {
  let sent = resumeAfter(request);
  const stream = openEventStream(request, reply, { stillAllowed: options.stillAllowed });
  let readyAnnounced = false;
  // Reads are chained: pages go out once each and in order however announcements bunch.
  let reading: Promise<void> = Promise.resolve();
  const readAgain = (): void => {
    reading = reading
      .then(async () => {
        for (;;) {
          if (stream.isFinished()) return;
          const rows = await readAfter(options.db, options.projectId, sent);
          if (rows.length > 0) {
            stream.write((await framesOf(options.db, rows)).join(""));
            sent = Number(rows.at(-1)?.seq ?? sent);
          }
          if (rows.length < PAGE) break;
        }
        if (!readyAnnounced) {
          readyAnnounced = true;
          const ready: EventNameOn<"project"> = "ready";
          stream.write(`event: ${ready}\ndata: {}\n\n`);
        }
      })
      .catch(() => {
        stream.finish();
      });
  };
  // Follow first, then read: an event stored in between is not lost.
  stream.onFinish(
    options.notifications.followProject(options.projectId, readAgain, () => {
      stream.finish();
    }),
  );
  readAgain();
  await stream.ended;
}
