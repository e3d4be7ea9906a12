import { existsSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
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

/** The console's icon (apps/console/public), also the answer to `/favicon.ico`. */
const FAVICON = "favicon.svg";

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
    // Browsers ask for /favicon.ico on their own (the page names /favicon.svg, but a tab on
    // any other address still asks): answered here, it never shows as a 401 in the console.
    const hasIcon = consoleDir !== null && existsSync(join(consoleDir, FAVICON));
    scope.get("/favicon.ico", (_request, reply) =>
      hasIcon ? reply.type("image/svg+xml").sendFile(FAVICON) : reply.code(204).send(),
    );
    if (consoleDir === null) {
      scope.get("/", (_request, reply) =>
        reply.type("text/html; charset=utf-8").send(NOT_BUILT_PAGE),
      );
      return;
    }
    // A project's own address (`/projects/7`): the console's page, which opens that project,
    // so a reload, the back button and a shared link land where they should.
    scope.get("/projects/:projectId", (_request, reply) =>
      reply.header("cache-control", "no-cache").sendFile("index.html"),
    );
    await scope.register(fastifyStatic, {
      root: consoleDir,
      prefix: "/",
      // One route per built file, found now: nothing else under / is served, so an unknown
      // path still gets the API's route_not_found.
      wildcard: false,
      index: ["index.html"],
      cacheControl: false,
      setHeaders: (reply, path) => {
        // Vite names the files under assets/ by content hash; everything else (the page, the
        // icon) keeps its name from build to build and must be fetched fresh.
        reply.header(
          "cache-control",
          relative(consoleDir, path).startsWith(`assets${sep}`)
            ? "public, max-age=31536000, immutable"
            : "no-cache",
        );
      },
    });
  });
}
