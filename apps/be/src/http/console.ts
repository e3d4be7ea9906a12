import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

/**
 * The web console (apps/console) as built by Vite, or null when it has not been built. The
 * package is a workspace dependency, so this resolves wherever pnpm installed it.
 */
export function builtConsoleDir(): string | null {
  try {
    const manifest = fileURLToPath(import.meta.resolve("@talkide/console/package.json"));
    const dir = join(dirname(manifest), "dist");
    return existsSync(join(dir, "index.html")) ? dir : null;
  } catch {
    return null;
  }
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TalkIDE console not built</title></head>
<body><main><h1>The TalkIDE console is not built</h1>
<p>Build it with <code>pnpm --filter @talkide/console run build</code> (or start the service with
<code>npm start</code>, which builds it), then restart the service. The API works without it.</p>
</main></body></html>
`;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Served without an API token: the console's own files, which hold no data. */
    publicRoute?: boolean;
  }
}

/**
 * Serves the console at `/`. Its files are public (the page asks for the token and sends it
 * as a bearer header on API calls); every route under /v1 still needs the token.
 */
export function registerConsole(app: FastifyInstance, consoleDir: string | null): void {
  void app.register(async (scope) => {
    // Marks every route of this scope public for the auth hook.
    scope.addHook("onRoute", (route) => {
      route.config = { ...route.config, publicRoute: true };
    });
    if (consoleDir === null) {
      scope.get("/", (_request, reply) =>
        reply.type("text/html; charset=utf-8").send(NOT_BUILT_PAGE),
      );
      return;
    }
    await scope.register(fastifyStatic, {
      root: consoleDir,
      prefix: "/",
      // One route per built file, found now: nothing else under / is served, so an unknown
      // path still gets the API's route_not_found.
      wildcard: false,
      index: ["index.html"],
      cacheControl: false,
      setHeaders: (reply, path) => {
        // Vite names assets by content hash; the page itself must always be fetched fresh.
        reply.header(
          "cache-control",
          path.endsWith("index.html") ? "no-cache" : "public, max-age=31536000, immutable",
        );
      },
    });
  });
}
