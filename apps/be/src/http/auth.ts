import type { FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import { ApiError, sendProblem } from "@talkide/service-kit";
import { bearerToken } from "../auth/tokens.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { findUserByToken } from "../domain/users.ts";

const PUBLIC_ROUTES = new Set(["/health"]);

/** Every route except the public ones needs `Authorization: Bearer <token>`. */
export function registerAuth(app: FastifyInstance, db: Kysely<DatabaseSchema>): void {
  app.decorateRequest("user", null);
  app.addHook("onRequest", async (request, reply) => {
    if (PUBLIC_ROUTES.has(request.routeOptions.url ?? "")) return;
    // The web console's static files (see console.ts) hold no data.
    if (request.routeOptions.config.publicRoute === true) return;
    const token = bearerToken(request.headers.authorization);
    const user = token === null ? null : await findUserByToken(db, token);
    if (user === null) {
      await sendProblem(
        reply.header("www-authenticate", 'Bearer realm="talkide"'),
        new ApiError(
          401,
          "unauthorized",
          token === null
            ? "Send your API token as `Authorization: Bearer <token>` (`npx talkide-be create-token --email <you>` prints one)."
            : "This API token is not valid; use the token printed by `npx talkide-be create-user` or `npx talkide-be create-token --email <you>`.",
          { title: "Unauthorized" },
        ),
      );
      return reply;
    }
    request.user = user;
  });
}
