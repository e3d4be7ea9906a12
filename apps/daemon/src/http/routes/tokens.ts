import { trimWhiteSpace } from "@talkide/text";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { DaemonDb } from "../../db/schema.ts";
import { createToken, listTokens, revokeToken } from "../../store/tokens.ts";
import { ApiError, parseInput } from "@talkide/service-kit";
import { requireScope } from "../auth.ts";

export function registerTokenRoutes(app: FastifyInstance, db: DaemonDb): void {
  const admin = { preHandler: requireScope(db, []) };

  /** The token is in this response only; the daemon keeps its hash. */
  app.post("/v1/tokens", admin, async (request, reply) => {
    const body = parseInput(
      z.strictObject({
        name: z.string().overwrite(trimWhiteSpace).min(1).max(100),
        scope: z.enum(["intake", "admin"]).default("intake"),
      }),
      request.body,
      "invalid_body",
    );
    const { id, token } = await createToken(db, body);
    return reply.code(201).send({ id, name: body.name, scope: body.scope, token });
  });

  app.get("/v1/tokens", admin, async () => ({
    tokens: (await listTokens(db)).map((t) => ({
      id: t.id,
      name: t.name,
      scope: t.scope,
      createdAt: t.createdAt.toISOString(),
      revokedAt: t.revokedAt?.toISOString() ?? null,
    })),
  }));

  app.delete("/v1/tokens/:tokenId", admin, async (request) => {
    const { tokenId } = parseInput(
      z.object({ tokenId: z.uuid() }),
      request.params,
      "invalid_params",
    );
    if (!(await revokeToken(db, tokenId)))
      throw new ApiError(404, "not_found", "No such live token.");
    return { id: tokenId, revoked: true };
  });
}
