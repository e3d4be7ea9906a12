import { isModerator, placeOfConversation, resolveTarget, type Place } from "./conversations.ts";
import { loadDetail, loadDetails, type MessageDetail } from "./details.ts";
import { badRequest, conflict, forbidden, notFound } from "./errors.ts";
import { getMember } from "./members.ts";
import { visibleMessage } from "./messages.ts";
import type { HubDb, MemberRow, MessageRow, TaskStatus } from "./schema.ts";
import { isClosed, transitionError } from "./task-lifecycle.ts";

/** Which task: by number on a conversation's board, or by message id (any top-level message). */
export interface TaskSelector {
  readonly target: string | null;
  readonly number: number | null;
  readonly messageId: string | null;
}

export interface TaskResult {
  readonly place: Place;
  readonly detail: MessageDetail;
  /** False when the call changed nothing (claiming your own task again, the same status). */
  readonly changed: boolean;
}

/** A conversation's board lives on the top-level conversation; a thread target means its parent. */
async function boardPlace(db: HubDb, caller: MemberRow, target: string): Promise<Place> {
  const place = await resolveTarget(db, caller, target);
  return place.conversation.kind === "thread"
    ? placeOfConversation(db, caller, place.top.id)
    : place;
}

async function selectMessage(
  db: HubDb,
  caller: MemberRow,
  selector: TaskSelector,
): Promise<{ place: Place; message: MessageRow }> {
  if (selector.messageId !== null) {
    const { place, ...message } = await visibleMessage(db, caller, selector.messageId);
    if (place.conversation.kind === "thread") {
      throw badRequest(
        "task_in_thread",
        `Message ${message.id} is in a thread; only top-level messages of a group or a DM become tasks.`,
        "messageId",
      );
    }
    if (selector.target !== null) {
      const asked = await boardPlace(db, caller, selector.target);
      if (asked.top.id !== place.top.id) {
        throw badRequest(
          "message_not_in_target",
          `Message ${message.id} is in ${place.target}, not in ${asked.target}.`,
          "messageId",
        );
      }
    }
    if (selector.number !== null && message.task_number !== selector.number) {
      throw badRequest(
        "conflicting_selector",
        `Message ${message.id} is not task #${selector.number}; give one of them.`,
        "number",
      );
    }
    return { place, message };
  }
  if (selector.number === null) {
    throw badRequest(
      "missing_task",
      "Say which task: --number <n> (with --target) or --message-id <id>.",
      "number",
    );
  }
  if (selector.target === null) {
    throw badRequest(
      "missing_target",
      `Task numbers are per conversation; say whose task #${selector.number} with --target.`,
      "target",
    );
  }
  const place = await boardPlace(db, caller, selector.target);
  const message = await db
    .selectFrom("hub_messages")
    .selectAll()
    .where("conversation_id", "=", place.top.id)
    .where("task_number", "=", selector.number)
    .executeTakeFirst();
  if (message === undefined) {
    throw notFound(
      "unknown_task",
      `There is no task #${selector.number} in ${place.target}; \`ticlawk task list\` shows the board.`,
    );
  }
  return { place, message };
}

async function lockMessage(db: HubDb, id: string): Promise<MessageRow> {
  return (
    db
      .selectFrom("hub_messages")
      .selectAll()
      .where("id", "=", id)
      // Not FOR UPDATE: a message being inserted that quotes this one takes a key-share lock on
      // it, and must not wait for (or deadlock with) a claim.
      .forNoKeyUpdate()
      .executeTakeFirstOrThrow()
  );
}

async function handleOf(db: HubDb, memberId: string | null): Promise<string> {
  const member = memberId === null ? undefined : await getMember(db, memberId);
  return member === undefined ? "someone" : `@${member.handle}`;
}

/**
 * Claims a task for the caller. A plain top-level message becomes a task on the way (next
 * number, status todo). A task someone else holds is a conflict: the caller must leave it.
 */
export async function claimTask(
  db: HubDb,
  caller: MemberRow,
  selector: TaskSelector,
): Promise<TaskResult> {
  return db.transaction().execute(async (trx) => {
    const { place, message: selected } = await selectMessage(trx, caller, selector);
    let message = await lockMessage(trx, selected.id);
    if (message.task_number === null) {
      const { last_task_number: number } = await trx
        .updateTable("hub_conversations")
        .set((eb) => ({ last_task_number: eb("last_task_number", "+", 1) }))
        .where("id", "=", place.top.id)
        .returning("last_task_number")
        .executeTakeFirstOrThrow();
      message = await trx
        .updateTable("hub_messages")
        .set({ task_number: number, task_status: "todo" })
        .where("id", "=", message.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const status = message.task_status ?? "todo";
    if (isClosed(status)) {
      throw conflict(
        "task_closed",
        `Task #${message.task_number} is ${status}; it cannot be claimed.`,
      );
    }
    if (message.task_assignee_id === caller.id)
      return { place, detail: await loadDetail(trx, message), changed: false };
    if (message.task_assignee_id !== null) {
      throw conflict(
        "task_already_claimed",
        `Task #${message.task_number} is already claimed by ${await handleOf(trx, message.task_assignee_id)}. Leave it and pick other work.`,
      );
    }
    message = await trx
      .updateTable("hub_messages")
      .set({ task_assignee_id: caller.id })
      .where("id", "=", message.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { place, detail: await loadDetail(trx, message), changed: true };
  });
}

/** Releases a claim: the assignee's own, or any as an owner or admin of the group. */
export async function unclaimTask(
  db: HubDb,
  caller: MemberRow,
  selector: TaskSelector,
): Promise<TaskResult> {
  return db.transaction().execute(async (trx) => {
    const { place, message: selected } = await selectMessage(trx, caller, selector);
    let message = await lockMessage(trx, selected.id);
    const status = requireTask(message);
    if (isClosed(status))
      throw conflict(
        "task_closed",
        `Task #${message.task_number} is ${status}; its assignee stays.`,
      );
    if (message.task_assignee_id === null) {
      throw conflict("task_not_claimed", `Task #${message.task_number} is not claimed by anyone.`);
    }
    if (message.task_assignee_id !== caller.id && !isModerator(place)) {
      throw forbidden(
        "not_assignee",
        `Task #${message.task_number} is held by ${await handleOf(trx, message.task_assignee_id)}; only they or an owner or admin can release it.`,
      );
    }
    message = await trx
      .updateTable("hub_messages")
      .set({ task_assignee_id: null })
      .where("id", "=", message.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { place, detail: await loadDetail(trx, message), changed: true };
  });
}

/**
 * Moves a task along its lifecycle. Who may: the assignee, the task's author, an owner or
 * admin of the group, either party of a DM, and anyone in the conversation while nobody
 * holds the task.
 */
export async function updateTaskStatus(
  db: HubDb,
  caller: MemberRow,
  selector: TaskSelector,
  to: TaskStatus,
): Promise<TaskResult> {
  return db.transaction().execute(async (trx) => {
    const { place, message: selected } = await selectMessage(trx, caller, selector);
    let message = await lockMessage(trx, selected.id);
    const from = requireTask(message);
    const allowed =
      place.top.kind === "dm" ||
      isModerator(place) ||
      message.task_assignee_id === null ||
      message.task_assignee_id === caller.id ||
      message.sender_id === caller.id;
    if (!allowed) {
      throw forbidden(
        "not_assignee",
        `Task #${message.task_number} is held by ${await handleOf(trx, message.task_assignee_id)}; only they, its author or an owner or admin may change its status.`,
      );
    }
    const error = transitionError(from, to);
    if (error !== null)
      throw conflict(isClosed(from) ? "task_closed" : "invalid_transition", error);
    if (from === to) return { place, detail: await loadDetail(trx, message), changed: false };
    message = await trx
      .updateTable("hub_messages")
      .set({ task_status: to })
      .where("id", "=", message.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { place, detail: await loadDetail(trx, message), changed: true };
  });
}

function requireTask(message: MessageRow): TaskStatus {
  if (message.task_number === null || message.task_status === null) {
    throw badRequest(
      "not_a_task",
      `Message ${message.id} is not a task; claim it (ticlawk task claim --message-id ${message.id}) to make it one.`,
      "messageId",
    );
  }
  return message.task_status;
}

/** The board of a conversation (of its parent, for a thread target), by task number. */
export async function listTasks(
  db: HubDb,
  caller: MemberRow,
  input: { readonly target: string; readonly status: TaskStatus | null },
): Promise<{ readonly place: Place; readonly tasks: readonly MessageDetail[] }> {
  const place = await boardPlace(db, caller, input.target);
  let query = db
    .selectFrom("hub_messages")
    .selectAll()
    .where("conversation_id", "=", place.top.id)
    .where("task_number", "is not", null);
  if (input.status !== null) query = query.where("task_status", "=", input.status);
  const rows = await query.orderBy("task_number").execute();
  return { place, tasks: await loadDetails(db, rows) };
}
