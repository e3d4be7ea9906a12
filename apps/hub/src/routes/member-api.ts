import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ApiError, parseInput } from "@talkide/service-kit";
import { PG_INTEGER_MAX, urlInteger } from "@talkide/strict-json";
import { callerOf, requireMember } from "../auth.ts";
import { getCharter, setCharter } from "../charter.ts";
import { placeMembers, resolveTarget, type Place } from "../conversations.ts";
import type { MessageDetail } from "../details.ts";
import type { DaemonClient } from "../daemon-client.ts";
import type { Dispatcher } from "../dispatcher.ts";
import { notFound } from "../errors.ts";
import { LIMITS } from "../input.ts";
import { reactToMessage, readMessages, sendMessage, visibleMessage } from "../messages.ts";
import { renderCharter, renderMessageLine } from "../render.ts";
import { TASK_STATUSES, type ConversationRow, type HubDb, type MemberRow } from "../schema.ts";
import { serverInfo } from "../server-info.ts";
import { claimTask, listTasks, unclaimTask, updateTaskStatus, type TaskResult } from "../tasks.ts";

const target = z.string().min(1).max(300);
const messageId = z.string().min(1).max(64);
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null);
const attachments = z
  .array(
    z.strictObject({
      name: z.string().max(1000),
      contentBase64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64"),
    }),
  )
  .max(100)
  .default([]);

/** Room for every attachment at its limit (base64 grows by 4/3) plus the JSON around them. */
const SEND_BODY_LIMIT =
  Math.ceil((LIMITS.attachmentsPerMessage * LIMITS.attachmentBytes * 4) / 3) + 1024 * 1024;

const taskSelector = z.strictObject({
  target: optional(target),
  number: optional(
    z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1),
  ),
  messageId: optional(messageId),
});

/** Where a message line is shown from: its conversation and the target naming it. */
interface Where {
  readonly target: string;
  readonly conversation: ConversationRow;
  readonly top: ConversationRow;
}

/**
 * The API the `ticlawk` CLI speaks, as a hub member (`/hub/v1/...`). Every success carries
 * `text`, the canonical output the CLI prints, next to the data it was made from.
 */
export function registerMemberApi(
  app: FastifyInstance,
  db: HubDb,
  dispatcher: Dispatcher,
  daemon: DaemonClient,
): void {
  void app.register(
    (scope, _options, done) => {
      scope.addHook("preHandler", requireMember(db, daemon));

      scope.get("/me", (request) => {
        const me = callerOf(request);
        return { member: memberView(me), text: `@${me.handle} (${me.kind})\n` };
      });

      scope.get("/server", (request) => serverInfo(db, callerOf(request)));

      scope.get("/members", async (request) => {
        const q = parseInput(z.strictObject({ target }), request.query, "invalid_query");
        const place = await resolveTarget(db, callerOf(request), q.target);
        const members = await placeMembers(db, place);
        const lines = members.map((m) => `  @${m.member.handle} ${m.member.kind} ${m.role}`);
        return {
          target: place.target,
          members: members.map((m) => ({ ...memberView(m.member), role: m.role })),
          text: `Members of ${place.target} (${members.length}):\n${lines.join("\n")}\n`,
        };
      });

      scope.post("/messages", { bodyLimit: SEND_BODY_LIMIT }, async (request) => {
        const b = parseInput(
          z.strictObject({ target, body: z.string(), attachments, quote: optional(messageId) }),
          request.body,
          "invalid_body",
        );
        const result = await sendMessage(db, callerOf(request), {
          target: b.target,
          body: b.body,
          attachments: decodeAttachments(b.attachments),
          quote: b.quote,
          task: null,
        });
        await dispatcher.drain();
        const { place, detail } = result;
        const m = detail.message;
        const lines = [
          `sent [target=${place.target} msg=${m.id} seq=${m.seq} time=${m.created_at.toISOString()}]`,
        ];
        if (place.root === null) lines.push(`thread: ${place.target}:${m.id}`);
        if (detail.attachments.length > 0) {
          lines.push(
            `attached: ${detail.attachments.map((a) => JSON.stringify(a.fileName)).join(" ")}`,
          );
        }
        if (result.unreachableMentions.length > 0) {
          const handles = result.unreachableMentions.map((h) => `@${h}`).join(" ");
          lines.push(`not notified (not in ${place.topTarget}): ${handles}`);
        }
        return {
          message: messageView(place, detail),
          routed: result.routed,
          unreachableMentions: result.unreachableMentions,
          text: `${lines.join("\n")}\n`,
        };
      });

      scope.get("/messages", async (request) => {
        const q = parseInput(
          z.strictObject({
            target: target.optional(),
            around: messageId.optional(),
            // Compared with hub_messages.seq, a PostgreSQL integer.
            before: urlInteger({ min: 1, max: PG_INTEGER_MAX }).optional(),
            limit: urlInteger({ min: 1, max: 200 }).default(50),
          }),
          request.query,
          "invalid_query",
        );
        const { place, root, messages, lastSeq } = await readMessages(db, callerOf(request), {
          target: q.target ?? null,
          around: q.around ?? null,
          before: q.before ?? null,
          limit: q.limit,
        });
        const rootWhere: Where = {
          target: place.topTarget,
          conversation: place.top,
          top: place.top,
        };
        const lines = messages.map((d) => renderLine(place, d));
        const first = messages[0]?.message.seq ?? 0;
        const last = messages.at(-1)?.message.seq ?? 0;
        const around = q.around === undefined ? "" : ` around msg=${q.around}`;
        const range = `seq ${first}–${last} of ${lastSeq}`;
        const text =
          root !== null
            ? [
                `Thread ${place.target}, under:`,
                renderLine(rootWhere, root),
                lines.length === 0 ? "No replies yet." : `Replies${around} (${range}):`,
                ...lines,
              ]
            : lines.length === 0
              ? [`No messages in ${place.target} yet.`]
              : [`Messages of ${place.target}${around} (${range}):`, ...lines];
        return {
          target: place.target,
          root: root === null ? null : messageView(rootWhere, root),
          messages: messages.map((d) => messageView(place, d)),
          lastSeq,
          text: `${text.join("\n")}\n`,
        };
      });

      scope.post("/reactions", async (request) => {
        const b = parseInput(
          z.strictObject({
            messageId,
            emoji: z.string().max(200),
            remove: z.boolean().default(false),
          }),
          request.body,
          "invalid_body",
        );
        const { place, detail, changed } = await reactToMessage(db, callerOf(request), b);
        const verb = b.remove
          ? changed
            ? "removed"
            : "had not reacted"
          : changed
            ? "reacted"
            : "already reacted";
        const now = detail.reactions.map(
          (r) => `${r.emoji} ${r.handles.map((h) => `@${h}`).join(" ")}`,
        );
        return {
          message: messageView(place, detail),
          changed,
          text: `${verb} ${b.emoji} on msg=${detail.message.id}; reactions now: ${now.length === 0 ? "none" : now.join("; ")}\n`,
        };
      });

      scope.get("/charter", async (request) => {
        const q = parseInput(z.strictObject({ target }), request.query, "invalid_query");
        const { place, charter } = await getCharter(db, callerOf(request), q.target);
        const text =
          charter === null
            ? `${place.target} has no charter.`
            : `Charter of ${place.target}:\n${renderCharter(charter)}`;
        return { target: place.target, charter, text: `${text}\n` };
      });

      scope.put("/charter", async (request) => {
        const b = parseInput(
          z.strictObject({ target, charter: z.string().nullable() }),
          request.body,
          "invalid_body",
        );
        const { place, charter } = await setCharter(db, callerOf(request), b);
        const text =
          charter === null
            ? `Charter of ${place.target} cleared.`
            : `Charter of ${place.target} updated:\n${renderCharter(charter)}`;
        return { target: place.target, charter, text: `${text}\n` };
      });

      scope.get("/tasks", async (request) => {
        const q = parseInput(
          z.strictObject({ target, status: z.enum(TASK_STATUSES).optional() }),
          request.query,
          "invalid_query",
        );
        const { place, tasks } = await listTasks(db, callerOf(request), {
          target: q.target,
          status: q.status ?? null,
        });
        const filter = q.status === undefined ? "" : ` with status=${q.status}`;
        const text =
          tasks.length === 0
            ? [`No tasks${filter} in ${place.target}.`]
            : [
                `Tasks of ${place.target}${filter} (${tasks.length}):`,
                ...tasks.map((d) => renderLine(place, d)),
              ];
        return {
          target: place.target,
          tasks: tasks.map((d) => messageView(place, d)),
          text: `${text.join("\n")}\n`,
        };
      });

      scope.post("/tasks", { bodyLimit: SEND_BODY_LIMIT }, async (request) => {
        const b = parseInput(
          z.strictObject({
            target,
            body: z.string(),
            attachments,
            assignee: optional(z.string().max(100)),
            title: optional(z.string().max(10_000)),
          }),
          request.body,
          "invalid_body",
        );
        const result = await sendMessage(db, callerOf(request), {
          target: b.target,
          body: b.body,
          attachments: decodeAttachments(b.attachments),
          quote: null,
          task: {
            assignee: b.assignee === null ? null : b.assignee.replace(/^@/, ""),
            title: b.title,
          },
        });
        await dispatcher.drain();
        return {
          message: messageView(result.place, result.detail),
          routed: result.routed,
          text: taskText("created", { place: result.place, detail: result.detail, changed: true }),
        };
      });

      scope.post("/tasks/claim", async (request) => {
        const selector = parseInput(taskSelector, request.body, "invalid_body");
        const result = await claimTask(db, callerOf(request), selector);
        return taskResponse(result.changed ? "claimed" : "you already hold", result);
      });

      scope.post("/tasks/unclaim", async (request) => {
        const selector = parseInput(taskSelector, request.body, "invalid_body");
        return taskResponse("released", await unclaimTask(db, callerOf(request), selector));
      });

      scope.post("/tasks/status", async (request) => {
        const { status, ...selector } = parseInput(
          taskSelector.extend({ status: z.enum(TASK_STATUSES) }),
          request.body,
          "invalid_body",
        );
        const result = await updateTaskStatus(db, callerOf(request), selector, status);
        return taskResponse(
          result.changed ? `set status=${status} on` : `status is already ${status} on`,
          result,
        );
      });

      scope.get("/attachments/:id", async (request, reply) => {
        const { id } = parseInput(
          z.strictObject({ id: z.string().min(1).max(64) }),
          request.params,
          "invalid_params",
        );
        const row = await db
          .selectFrom("hub_attachments")
          .select(["message_id", "file_name", "content"])
          .where("id", "=", id)
          .executeTakeFirst();
        // One answer whether the attachment does not exist or sits in a conversation the
        // caller cannot read: neither its existence nor its message is theirs to learn.
        const unknown = () =>
          notFound(
            "unknown_attachment",
            "No attachment with this id is in a conversation you can read.",
          );
        if (row === undefined) throw unknown();
        try {
          await visibleMessage(db, callerOf(request), row.message_id);
        } catch (error) {
          if (error instanceof ApiError && error.httpStatus === 404) throw unknown();
          throw error;
        }
        return reply
          .header("content-type", "application/octet-stream")
          .header(
            "content-disposition",
            `attachment; filename*=UTF-8''${encodeURIComponent(row.file_name)}`,
          )
          .send(Buffer.from(row.content));
      });

      done();
    },
    { prefix: "/hub/v1" },
  );
}

function taskText(verb: string, result: TaskResult): string {
  const m = result.detail.message;
  return `${verb} task #${m.task_number ?? 0} (msg=${m.id}) in ${result.place.target}\n${renderLine(result.place, result.detail)}\n`;
}

function taskResponse(verb: string, result: TaskResult) {
  return {
    message: messageView(result.place, result.detail),
    changed: result.changed,
    text: taskText(verb, result),
  };
}

function decodeAttachments(
  list: readonly { readonly name: string; readonly contentBase64: string }[],
) {
  return list.map((a) => ({
    name: a.name,
    content: new Uint8Array(Buffer.from(a.contentBase64, "base64")),
  }));
}

function renderLine(where: Where, detail: MessageDetail): string {
  return renderMessageLine({
    target: where.target,
    conversation: where.conversation,
    top: where.top,
    detail,
  });
}

export function memberView(member: MemberRow) {
  return {
    id: member.id,
    handle: member.handle,
    kind: member.kind,
    agentId: member.agent_id,
  };
}

function messageView(where: Where | Place, detail: MessageDetail) {
  const { message, sender, assignee } = detail;
  return {
    id: message.id,
    target: where.target,
    conversationId: message.conversation_id,
    seq: message.seq,
    createdAt: message.created_at.toISOString(),
    sender: { handle: sender.handle, kind: sender.kind },
    body: message.body,
    quote: message.quote_message_id,
    task:
      message.task_number === null
        ? null
        : {
            number: message.task_number,
            status: message.task_status,
            assignee: assignee === null ? null : { handle: assignee.handle, kind: assignee.kind },
            title: message.task_title,
          },
    reactions: detail.reactions,
    attachments: detail.attachments,
    line: renderLine(where, detail),
  };
}
