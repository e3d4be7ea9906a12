import { buildInboundWakePrompt, parseDelivery } from "@talkide/prompts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, type Backend } from "@talkide/service-kit/testing";
import { startHub, type HubFixture } from "./hub-harness.ts";

/**
 * Routing with the hub's database on one storage backend, through a real daemon: every new
 * message becomes deliveries via the daemon's HTTP intake; the daemon stores them (turns
 * fail at once here: no claude binary is configured). Also the counters and claims under
 * concurrent requests.
 */
export function defineRoutingSuite(backend: Backend): void {
  describe.skipIf(!backend.available)(`hub routing (${backend.name})`, () => {
    let hub: HubFixture;
    let alice: string;
    let cook: string;
    let critic: string;

    const start = async (dataDir?: string, databaseUrl?: string | null) => {
      const url = databaseUrl === undefined ? await backend.newDatabase() : databaseUrl;
      return {
        url,
        hub: await startHub({
          hubConfig: { databaseUrl: url },
          ...(dataDir === undefined ? {} : { dataDir }),
        }),
      };
    };

    beforeAll(async () => {
      await backend.setup();
      hub = (await start()).hub;
      alice = await hub.addHuman("alice");
      await hub.addHuman("bob");
      cook = await hub.addAgent("cook");
      critic = await hub.addAgent("critic", { handle: "Critic" });
      await hub.addAgent("outsider", { joinGeneral: false });
      await hub.createGroup(
        "kitchen",
        [
          { handle: "alice", role: "owner" },
          { handle: "bob" },
          { handle: "cook" },
          { handle: "critic" },
        ],
        "Where soup\nhappens",
      );
      await hub.api.call("PUT", "/hub/v1/admin/groups/kitchen/members/alice", { role: "owner" });
    });
    afterAll(async () => {
      await hub.stop();
      await backend.teardown();
    });

    interface Sent {
      readonly id: string;
      readonly seq: number;
      readonly createdAt: string;
      readonly conversationId: string;
    }

    async function send(
      token: string,
      target: string,
      body: string,
      extra: Record<string, unknown> = {},
    ): Promise<Sent & { unreachableMentions: string[] }> {
      const r = await hub.hub<{ message: Sent; unreachableMentions: string[] }>(
        token,
        "POST",
        "/messages",
        { target, body, ...extra },
      );
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      return { ...r.body.message, unreachableMentions: r.body.unreachableMentions };
    }

    /** The deliveries each agent got for one message, from the daemon's API: agent id → reason. */
    async function routesOf(messageId: string): Promise<Record<string, string | null>> {
      const rows = (await hub.test.api.deliveries()).filter((d) => d.messageId === messageId);
      rows.sort((a, b) => a.agentId.localeCompare(b.agentId));
      return Object.fromEntries(rows.map((r) => [r.agentId, r.reason]));
    }

    async function payloadOf(agentId: string, messageId: string): Promise<Record<string, unknown>> {
      const delivery = (await hub.test.api.deliveries(agentId)).find(
        (d) => d.messageId === messageId,
      );
      if (delivery === undefined) throw new Error(`no delivery of ${messageId} to ${agentId}`);
      return (await hub.test.api.withPayload(delivery)).payload;
    }

    describe("routing reasons", () => {
      it("a group message: mention for the addressed agent, ambient for the others, nothing for people", async () => {
        const m = await send(alice, "#kitchen", "@cook, is the soup ready? (@outsider too)");
        expect(await routesOf(m.id)).toEqual({ cook: "mention", critic: "ambient" });
        expect(m.unreachableMentions).toEqual(["outsider"]);
      });

      it("never to the sender: an agent's message is ambient for the other agents only", async () => {
        const m = await send(cook, "#kitchen", "Soup is ready. @cook out.");
        expect(await routesOf(m.id)).toEqual({ critic: "ambient" });
      });

      it("a task with an assignee: assignment for the assignee (stronger than a mention)", async () => {
        const r = await hub.hub<{ message: Sent }>(alice, "POST", "/tasks", {
          target: "#kitchen",
          body: "@Critic and @cook: review the menu",
          assignee: "@critic",
        });
        expect(await routesOf(r.body.message.id)).toEqual({
          cook: "mention",
          critic: "assignment",
        });
        expect(await payloadOf("critic", r.body.message.id)).toMatchObject({
          task_number: "1",
          task_status: "todo",
          task_assignee_type: "agent",
          task_assignee_agent_id: "Critic",
        });
      });

      it("a DM: dm for the peer, from a person or from another agent", async () => {
        const fromAlice = await send(alice, "dm:@cook", "Hi cook");
        expect(await routesOf(fromAlice.id)).toEqual({ cook: "dm" });
        const agentToAgent = await send(cook, "dm:@critic", "Hi critic");
        expect(await routesOf(agentToAgent.id)).toEqual({ critic: "dm" });
      });

      it("a thread: thread_follow for earlier participants, mention for the addressed, nobody else", async () => {
        const root = await send(cook, "#kitchen", "Thread about bread");
        expect(await routesOf(root.id)).toEqual({ critic: "ambient" });
        const first = await send(alice, `#kitchen:${root.id}`, "I like rye");
        expect(await routesOf(first.id)).toEqual({ cook: "thread_follow" });
        const mention = await send(alice, `#kitchen:${root.id}`, "@critic thoughts?");
        expect(await routesOf(mention.id)).toEqual({ cook: "thread_follow", critic: "mention" });
        const byCritic = await send(critic, `#kitchen:${root.id}`, "Rye it is");
        expect(await routesOf(byCritic.id)).toEqual({ cook: "thread_follow" });
        const byCook = await send(cook, `#kitchen:${root.id}`, "Baking now");
        expect(await routesOf(byCook.id)).toEqual({ critic: "thread_follow" });
      });
    });

    describe("delivery documents", () => {
      it("carry what the wake prompt needs, with created_at and seq from the message row", async () => {
        await hub.hub(alice, "PUT", "/charter", { target: "#kitchen", charter: "Feed everyone." });
        const quoted = await send(critic, "#kitchen", "The broth needs salt.\nAnd pepper.");
        const m = await send(alice, "#kitchen", "@cook agreed?", { quote: quoted.id });
        await hub.hub(critic, "POST", "/reactions", { messageId: m.id, emoji: "👀" });
        const payload = await payloadOf("cook", m.id);
        expect(payload).toEqual({
          id: m.id,
          seq: String(m.seq),
          created_at: m.createdAt,
          conversation_type: "group",
          thread_parent_type: null,
          conversation_id: m.conversationId,
          conversation_name: "kitchen",
          conversation_description: "Where soup\nhappens",
          conversation_charter: "Feed everyone.",
          thread_root_message_id: null,
          sender_type: "human",
          sender_display_name: "alice",
          sender_user_id: expect.stringMatching(/^m-/) as unknown,
          sender_agent_id: null,
          reason: "mention",
          text: "@cook agreed?",
          task_number: null,
          task_status: null,
          task_assignee_type: null,
          task_assignee_agent_id: null,
          task_assignee_user_id: null,
          task_title: null,
          reactions_summary: [],
          attachments: [],
          message_metadata: {
            quote: {
              kind: "message",
              ref: quoted.id,
              snippet: "The broth needs salt. And pepper.",
            },
          },
        });
        const rows = await hub.db
          .selectFrom("hub_messages")
          .select(["created_at", "seq"])
          .where("id", "=", m.id)
          .executeTakeFirstOrThrow();
        expect(rows.created_at.toISOString()).toBe(payload["created_at"]);
        const wake = buildInboundWakePrompt(parseDelivery(payload));
        expect(wake.text).toContain(
          `[quote\n  kind=message ref=${quoted.id}\n> The broth needs salt. And pepper.\n  fetch: ticlawk message read --around ${quoted.id}\n[/quote]`,
        );
        expect(wake.text).toContain("[charter]\n> Feed everyone.\n[/charter]");
        expect(wake.header).toBe(
          `[target=#kitchen msg=${m.id} seq=${m.seq} time=${m.createdAt} type=human reason=mention] \\@alice:`,
        );
        // An agent sender is named by its handle, with its daemon agent id.
        const byCritic = await payloadOf("cook", quoted.id);
        expect(byCritic).toMatchObject({
          sender_type: "agent",
          sender_display_name: "Critic",
          sender_agent_id: "critic",
        });
      });

      it("the quote's fetch command from the wake prompt works for the agent", async () => {
        const quoted = await send(alice, "#kitchen", "Original words");
        const reply = await send(alice, "#kitchen", "@cook see above", { quote: quoted.id });
        const wake = buildInboundWakePrompt(parseDelivery(await payloadOf("cook", reply.id)));
        const fetchLine = /fetch: ticlawk (message read --around \S+)/.exec(wake.text)?.[1];
        expect(fetchLine).toBeDefined();
        const read = await hub.ticlawk(cook, (fetchLine ?? "").split(" "));
        expect(read.code).toBe(0);
        expect(read.stdout).toContain(`msg=${quoted.id} `);
        expect(read.stdout).toContain("@alice: Original words");
      });
    });

    describe("wake prompt targets round-trip into ticlawk message send --target", () => {
      /**
       * The recipient copies the reply command's target out of its wake prompt and sends; the
       * reply must land in the very conversation the message came from.
       */
      async function replyFromWake(agentId: string, token: string, messageId: string) {
        const payload = await payloadOf(agentId, messageId);
        const wake = buildInboundWakePrompt(parseDelivery(payload));
        expect(wake.text).toContain(`ticlawk message send --target "${wake.target}"`);
        const reply = await hub.ticlawk(token, ["message", "send", "--target", wake.target], {
          stdin: "a reply",
        });
        expect(reply.code).toBe(0);
        const replyId = /msg=([0-9a-f]{8})/.exec(reply.stdout)?.[1] ?? "";
        const row = await hub.db
          .selectFrom("hub_messages")
          .select("conversation_id")
          .where("id", "=", replyId)
          .executeTakeFirstOrThrow();
        expect(row.conversation_id).toBe(payload["conversation_id"]);
        return { target: wake.target, replyId };
      }

      it("#group, #group:ROOT, dm:@peer and dm:@peer:ROOT", async () => {
        const group = await send(alice, "#kitchen", "@cook round trip");
        expect((await replyFromWake("cook", cook, group.id)).target).toBe("#kitchen");

        const threadReply = await send(alice, `#kitchen:${group.id}`, "@cook in the thread");
        expect((await replyFromWake("cook", cook, threadReply.id)).target).toBe(
          `#kitchen:${group.id}`,
        );

        const dm = await send(critic, "dm:@cook", "agent to agent");
        const dmRoundTrip = await replyFromWake("cook", cook, dm.id);
        expect(dmRoundTrip.target).toBe("dm:@Critic");
        // …and the peer agent is woken by the reply, in the same conversation.
        expect(await routesOf(dmRoundTrip.replyId)).toEqual({ critic: "dm" });

        const dmThread = await send(
          alice,
          `dm:@critic:${(await send(alice, "dm:@critic", "root")).id}`,
          "in a DM thread",
        );
        const dmThreadTrip = await replyFromWake("critic", critic, dmThread.id);
        expect(dmThreadTrip.target).toMatch(/^dm:@alice:[0-9a-f]{8}$/);
      });
    });

    describe("the outbox", () => {
      it("hands over, on the next start, deliveries stored while the daemon was gone", async () => {
        const first = await start();
        const own = first.hub;
        const dataDir = own.dataDir;
        try {
          const token = await own.addHuman("ann");
          await own.addAgent("helper");
          // The daemon gone: the message is committed with its outbox row, which waits.
          await own.haltDaemon();
          const sent = await own.hub<{ message: { id: string } }>(token, "POST", "/messages", {
            target: "#general",
            body: "first",
          });
          const waiting = await own.db
            .selectFrom("hub_outbox")
            .select("state")
            .where("message_id", "=", sent.body.message.id)
            .execute();
          expect(waiting.map((o) => o.state)).toEqual(["pending"]);
          await own.halt();

          const again = (await start(dataDir, first.url)).hub;
          try {
            const delivered = await again.deliveries("helper");
            expect(delivered.map((d) => [d.reason, d.payload["id"]])).toEqual([
              ["ambient", sent.body.message.id],
            ]);
            const outbox = await again.db.selectFrom("hub_outbox").select("state").execute();
            expect(outbox.map((o) => o.state)).toEqual(["accepted"]);
          } finally {
            await again.stop();
          }
        } finally {
          await removeDir(dataDir);
        }
      });
    });

    describe("under concurrent requests", () => {
      it("numbers messages without gaps or repeats, and lets exactly one of many claimants win", async () => {
        await hub.createGroup("race", [
          { handle: "alice" },
          { handle: "cook" },
          { handle: "critic" },
        ]);
        const sent = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            send(i % 2 === 0 ? alice : cook, "#race", `message ${i}`),
          ),
        );
        expect(sent.map((m) => m.seq).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );

        const task = sent[0]?.id ?? "";
        const claims = await Promise.all(
          [alice, cook, critic, alice, cook, critic].map((token) =>
            hub.hub<{ error?: { code: string } }>(token, "POST", "/tasks/claim", {
              messageId: task,
            }),
          ),
        );
        const winners = claims.filter((c) => c.status === 200);
        const losers = claims.filter((c) => c.status !== 200);
        // The winner may claim again harmlessly (its duplicates answer 200 too); everyone else conflicts.
        expect(
          new Set(
            winners.map((w) =>
              JSON.stringify((w.body as { message?: { task?: unknown } }).message?.task),
            ),
          ).size,
        ).toBe(1);
        expect(losers.length).toBeGreaterThanOrEqual(4);
        expect(
          losers.every((l) => l.status === 409 && l.body.error?.code === "task_already_claimed"),
        ).toBe(true);
        const numbers = await Promise.all(
          sent.slice(1, 6).map((m) =>
            hub.hub<{ message: { task: { number: number } } }>(critic, "POST", "/tasks/claim", {
              messageId: m.id,
            }),
          ),
        );
        expect(numbers.map((n) => n.body.message.task.number).sort((a, b) => a - b)).toEqual([
          2, 3, 4, 5, 6,
        ]);
      });
    });
  });
}
