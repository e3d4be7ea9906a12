import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";
import {
  capturingLogger,
  expectHostileBodiesRefused,
  snapshotDatabase,
  type HostileRoute,
} from "@talkide/service-kit/testing";

/**
 * Every write route of the daemon, over real HTTP, against bodies no client should send:
 * each is refused with a 4xx and a stable code, the database is unchanged, and no log line
 * holds any of the body's text. (The hub's routes have their own suite in apps/hub.)
 */
describe("hostile request bodies on every write route of the daemon", () => {
  let dir: string;
  let td: TestDaemon;
  const { logger, logs } = capturingLogger("talkide-daemon");
  let tokens: { admin: string; intake: string };

  beforeAll(async () => {
    dir = await makeTempDir();
    // One attempt, no claude: the set-up delivery settles at once, before the snapshots.
    td = await startTestDaemon({
      dataDir: dir,
      logger,
      config: { maxAttempts: 1, claudePath: join(dir, "no-claude-here") },
    });
    await td.api.registerAgent("cook", join(dir, "ws-cook"));
    const intake = await td.api.call<{ token: string }>("POST", "/v1/tokens", {
      name: "message-service",
      scope: "intake",
    });
    tokens = { admin: td.api.token, intake: intake.body.token };
    const first = await td.api.deliver("cook", makeDelivery());
    await td.api.settled([first.body.delivery.id]);
  });

  afterAll(async () => {
    await td.stop();
    await removeDir(dir);
  });

  const routes = (): HostileRoute[] => [
    {
      method: "PUT",
      path: "/v1/agents/scout",
      token: tokens.admin,
      valid: { workspaceDir: join(dir, "ws-scout") },
    },
    { method: "POST", path: "/v1/agents/cook/reset", token: tokens.admin, valid: { note: "x" } },
    {
      method: "POST",
      path: "/v1/tokens",
      token: tokens.admin,
      valid: { name: "svc", scope: "intake" },
    },
    {
      method: "DELETE",
      path: "/v1/tokens/00000000-0000-4000-8000-000000000000",
      token: tokens.admin,
      valid: { note: "x" },
    },
    {
      method: "POST",
      path: "/v1/agents/cook/deliveries",
      token: tokens.intake,
      valid: makeDelivery({ conversation_charter: "Bake bread." }) as never,
    },
    {
      method: "POST",
      path: "/v1/turn-credentials/verify",
      token: tokens.intake,
      valid: { token: "tkt_00000000-0000-4000-8000-000000000000.x" },
    },
  ];

  it(
    "refuses each with a stable 4xx code, writes nothing and logs no body text",
    { timeout: 600_000 },
    async () => {
      await expectHostileBodiesRefused({
        baseUrl: td.daemon.url,
        routes: routes(),
        snapshot: () => snapshotDatabase(td.daemon.db),
        logs,
      });
    },
  );
});
