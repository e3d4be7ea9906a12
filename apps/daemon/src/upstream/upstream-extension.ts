import { z } from "zod";
import type { DaemonExtension } from "../extension.ts";
import { requireScope } from "../http/auth.ts";
import { parseInput } from "@talkide/service-kit";
import {
  loadOrCreateTurnCredentialKey,
  mintTurnCredential,
  verifyTurnCredential,
} from "./turn-credentials.ts";

/**
 * What the daemon offers the message service that pushes its deliveries, whichever service
 * that is: each turn gets the service's URL (`TICLAWK_HUB_URL`, from `TALKIDE_UPSTREAM_URL`)
 * and a credential of that turn (`TICLAWK_TOKEN`), and the service checks such a credential
 * with the intake token it already holds: `POST /v1/turn-credentials/verify`.
 */
export function upstreamExtension(upstreamUrl: string | null): DaemonExtension {
  let key: Buffer | null = null;
  return {
    name: "upstream",
    async register(app, context) {
      const signingKey = await loadOrCreateTurnCredentialKey(context.config.dataDir);
      key = signingKey;
      app.post(
        "/v1/turn-credentials/verify",
        { preHandler: requireScope(context.db, ["intake"]) },
        async (request) => {
          const { token } = parseInput(
            z.strictObject({ token: z.string().max(200) }),
            request.body,
            "invalid_body",
          );
          return verifyTurnCredential(context.db, signingKey, token);
        },
      );
    },
    // A credential is minted for each turn; the hub's URL stays.
    perTurnEnv: ["TICLAWK_TOKEN"],
    childEnv(turn) {
      if (upstreamUrl === null || key === null) return {};
      return { TICLAWK_HUB_URL: upstreamUrl, TICLAWK_TOKEN: mintTurnCredential(key, turn.turnId) };
    },
  };
}
