import type { Kysely } from "kysely";
import type { DatabaseSchema } from "./db/schema.ts";
import { createProject, type ProjectView } from "./domain/projects.ts";
import { countUsers, createUser } from "./domain/users.ts";

export const DEMO_USER = { email: "demo@talkide.invalid", displayName: "Demo User" } as const;

export interface DemoSeed {
  readonly token: string;
  readonly email: string;
  readonly project: ProjectView;
}

/**
 * On the first start of an empty database: a demo user (with a token, returned here once)
 * and a demo project whose only member is that user. Any later start finds users and
 * does nothing, so the token is never shown again.
 */
export async function seedDemo(
  db: Kysely<DatabaseSchema>,
  workspacesDir: string,
): Promise<DemoSeed | null> {
  if ((await countUsers(db)) > 0) return null;
  const { user, token } = await createUser(db, DEMO_USER);
  const project = await createProject(db, {
    userId: user.id,
    workspacesDir,
    input: {
      name: "Demo project",
      description: "A small demo project to try TalkIDE's backend with.",
      member: { salutation: "Demo", teamBriefing: "Keep answers short." },
    },
  });
  return { token, email: user.email, project };
}

export function demoBanner(seed: DemoSeed, url: string): string {
  const rule = "=".repeat(72);
  return [
    rule,
    "TalkIDE backend: first start, demo data created.",
    `  user:    ${seed.email}`,
    `  project: "${seed.project.name}" (id ${seed.project.id})`,
    "",
    "The demo user's API token, shown only this once (it is stored hashed):",
    "",
    `  export TALKIDE_TOKEN=${seed.token}`,
    `  export TALKIDE_URL=${url}`,
    "",
    "Or open the web console, signed in with one click (the token travels in the URL",
    "fragment, which the browser never sends to a server):",
    "",
    `  ${consoleSignInLink(url, seed.token)}`,
    "",
    "Lost it? Stop the service and run, from the repository root in any shell:",
    `  sh scripts/toolchain.sh pnpm --filter @talkide/be run cli create-token --email ${seed.email}`,
    rule,
    "",
  ].join("\n");
}

export function demoModelBanner(apiUrl: string): string {
  const rule = "!".repeat(72);
  return [
    rule,
    "ANTHROPIC_API_KEY is not set: Mara's replies come from a LOCAL DEMO MODEL",
    `(a fake Messages API on ${apiUrl}), not from Claude. The real Claude Code CLI`,
    "still runs every turn. Set ANTHROPIC_API_KEY and restart to talk to Claude.",
    rule,
    "",
  ].join("\n");
}

/**
 * The console's sign-in link. The token sits in the fragment (`#token=`), never in the query:
 * browsers do not send fragments to servers, so it reaches no access log or proxy, and the
 * console removes it from the address bar once read.
 */
export function consoleSignInLink(url: string, token: string): string {
  return `${url}/#token=${encodeURIComponent(token)}`;
}

/** Printed on every start: where the console is. */
export function consoleBanner(url: string, built: boolean): string {
  return built
    ? `TalkIDE web console: ${url}/ (sign in with an API token)\n`
    : `TalkIDE web console: not built; run \`pnpm --filter @talkide/console run build\` and restart (the API at ${url} works without it)\n`;
}
