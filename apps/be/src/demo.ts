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

/**
 * What the service prints once it is ready, in one piece and after every line it logged at
 * start: the demo-model warning, then where the console is; on the first start the demo data
 * and its sign-in lines, which end the banner so that they stay in view.
 */
export function startBanner(options: {
  readonly url: string;
  readonly consoleBuilt: boolean;
  readonly demo: DemoSeed | null;
  /** The local demo model's URL when no ANTHROPIC_API_KEY is set. */
  readonly demoModelUrl: string | null;
}): string {
  const { url, consoleBuilt, demo, demoModelUrl } = options;
  return [
    demoModelUrl === null ? "" : demoModelBanner(demoModelUrl),
    demo === null ? consoleBanner(url, consoleBuilt) : demoBanner(demo, url, consoleBuilt),
  ].join("");
}

function demoBanner(seed: DemoSeed, url: string, consoleBuilt: boolean): string {
  const rule = "=".repeat(72);
  return [
    rule,
    "TalkIDE backend: first start, demo data created.",
    `  user:    ${seed.email}`,
    `  project: "${seed.project.name}" (id ${seed.project.id})`,
    "",
    "The demo user's API token below is shown only this once (it is stored hashed). Lost it?",
    "Run, from the repository root (the service may keep running):",
    `  npx talkide-be create-token --email ${seed.email}`,
    "",
    "Sign in with curl: paste these two lines into a second terminal (README, Driving the",
    "backend with curl):",
    "",
    `  export TALKIDE_TOKEN=${seed.token}`,
    `  export TALKIDE_URL=${url}`,
    "",
    ...(consoleBuilt
      ? [
          "Or open the web console, signed in with one click (the token travels in the URL",
          "fragment, which the browser never sends to a server):",
          "",
          `  ${consoleSignInLink(url, seed.token)}`,
        ]
      : [consoleLine(url, false)]),
    rule,
    "",
  ].join("\n");
}

function demoModelBanner(apiUrl: string): string {
  const rule = "!".repeat(72);
  return [
    rule,
    "ANTHROPIC_API_KEY is not set: Mara's replies come from a LOCAL DEMO MODEL",
    `(a fake Messages API on ${apiUrl}), not from Claude. The real Claude Code CLI`,
    "still runs every turn; the demo model says back what Mara received (project, writer,",
    "briefing, changed files). Costs shown for its turns are not real money.",
    "Set ANTHROPIC_API_KEY and restart to talk to Claude.",
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

/** Printed on every later start: where the console is. */
export function consoleBanner(url: string, built: boolean): string {
  return `${consoleLine(url, built)}\n`;
}

function consoleLine(url: string, built: boolean): string {
  return built
    ? `TalkIDE web console: ${url}/ (sign in with an API token)`
    : `TalkIDE web console: not built; run \`pnpm --filter @talkide/console run build\` and restart (the API at ${url} works without it)`;
}
