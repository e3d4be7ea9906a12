import type { DaemonExtension } from "../extension.ts";
import { Dispatcher } from "./dispatcher.ts";
import { findMemberByAgentId } from "./members.ts";
import { registerAdminApi } from "./routes/admin-api.ts";
import { registerMemberApi } from "./routes/member-api.ts";
import type { HubDb, HubTables } from "./schema.ts";
import { issueTurnToken } from "./tokens.ts";

/**
 * The local message hub, the daemon's embedded default: groups, DMs, threads, tasks and
 * charters on the daemon's own database, the member API the `ticlawk` CLI speaks, and routing
 * of every new message into deliveries through the daemon's in-process intake.
 *
 * Each turn of an agent that is a hub member gets `TICLAWK_HUB_URL` (this daemon) and
 * `TICLAWK_TOKEN` (valid while the turn runs) in its environment.
 */
export function hubExtension(): DaemonExtension {
  let db: HubDb | null = null;
  let dispatcher: Dispatcher | null = null;
  let baseUrl = (): string => "";
  return {
    name: "hub",
    migrations: { namespace: "hub", folder: new URL("./migrations/", import.meta.url) },
    async register(app, context) {
      const hubDb: HubDb = context.db.$extendTables<HubTables>();
      db = hubDb;
      baseUrl = () => context.baseUrl();
      dispatcher = new Dispatcher({
        db: hubDb,
        accept: (agentId, delivery) => context.acceptDelivery(agentId, delivery),
        logger: context.logger.child({ component: "hub" }),
      });
      registerMemberApi(app, hubDb, dispatcher);
      registerAdminApi(app, context.db, hubDb);
      // Deliveries a previous run stored but did not hand over yet (it stopped in between).
      await dispatcher.drain();
    },
    async childEnv(turn) {
      if (db === null) return {};
      const member = await findMemberByAgentId(db, turn.agentId);
      if (member === undefined) return {};
      return {
        TICLAWK_HUB_URL: baseUrl(),
        TICLAWK_TOKEN: await issueTurnToken(db, member.id, turn.turnId),
      };
    },
    async close() {
      await dispatcher?.drain();
    },
  };
}
