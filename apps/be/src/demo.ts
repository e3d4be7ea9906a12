import type { Kysely } from "kysely";
import type { DatabaseSchema } from "./db/schema.ts";
import { createProject, type ProjectView } from "./domain/projects.ts";
import { countUsers, createUser, findUserIdByEmail } from "./domain/users.ts";
import { issueSignInCode, type SignInCode } from "./auth/sign-in-codes.ts";
import { reachabilityWarning } from "./public-url.ts";

export const DEMO_USER = { email: "demo@talkide.invalid", displayName: "Demo User" } as const;
const DEMO_TOKEN_NAME = "curl walk-through";

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
  const { user, token } = await createUser(db, DEMO_USER, DEMO_TOKEN_NAME);
  const project = await createProject(db, {
    userId: user.id,
    workspacesDir,
    input: {
      name: "Demo project",
      description: "A small demo project to try TalkIDE's backend with.",
      member: { salutation: "Demo", teamBriefing: "Keep answers short." },
    },
  });
  return { token, email: DEMO_USER.email, project };
}

/** A one-time sign-in link for the demo user, or null when there is none (see service.ts). */
export async function demoUserSignIn(db: Kysely<DatabaseSchema>): Promise<SignInCode | null> {
  const userId = await findUserIdByEmail(db, DEMO_USER.email);
  return userId === null ? null : issueSignInCode(db, userId);
}

/**
 * What the service prints once it is ready, in one piece and after every line it logged at
 * start: the demo-model warning, then where the console is and a one-time sign-in link; on the
 * first start the demo data and its API token for curl. The sign-in lines end the banner so
 * that they stay in view.
 */
export function startBanner(options: {
  readonly url: string;
  /** The address links are built on (TALKIDE_PUBLIC_URL, or the listen address). */
  readonly publicUrl: string;
  readonly listensBeyondLoopback: boolean;
  readonly consoleBuilt: boolean;
  readonly demo: DemoSeed | null;
  /** A fresh one-time sign-in link for the demo user (null: no demo user, or no console). */
  readonly signIn: SignInCode | null;
  /** The local demo model's URL when no ANTHROPIC_API_KEY is set. */
  readonly demoModelUrl: string | null;
}): string {
  const { publicUrl, consoleBuilt, demo, signIn, demoModelUrl } = options;
  const warning = reachabilityWarning(publicUrl, options.listensBeyondLoopback);
  return [
    demoModelUrl === null ? "" : demoModelBanner(demoModelUrl),
    demo === null ? "" : demoBanner(demo, publicUrl),
    warning === null ? "" : `${warning}\n`,
    consoleBanner(publicUrl, consoleBuilt, signIn),
  ].join("");
}

function demoBanner(seed: DemoSeed, url: string): string {
  const rule = "=".repeat(72);
  return [
    rule,
    "TalkIDE backend: first start, demo data created.",
    `  user:    ${seed.email}`,
    `  project: "${seed.project.name}" (id ${seed.project.id})`,
    "",
    `The demo user's API token "${DEMO_TOKEN_NAME}" below is shown only this once (stored`,
    "hashed; it expires in 90 days and can be ended in the console's Account view). For curl,",
    "paste these two lines into a second terminal (docs/walkthrough.md, the backend with curl):",
    "",
    `  export TALKIDE_TOKEN=${seed.token}`,
    `  export TALKIDE_URL=${url}`,
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
 * Where the console is and, when there is a demo user, a one-time link that signs a browser in
 * (the code sits in the fragment, which browsers never send to a server; it works once, for 24
 * hours, and then is worth nothing wherever the browser kept the address).
 */
export function consoleBanner(url: string, built: boolean, signIn: SignInCode | null): string {
  if (!built) {
    return `TalkIDE web console: not built; run \`pnpm --filter @talkide/console run build\` and restart (the API at ${url} works without it)\n`;
  }
  if (signIn === null) {
    return `TalkIDE web console: ${url}/ (sign in with a link from \`npx talkide-be sign-in-link --email <you>\`)\n`;
  }
  return [
    `TalkIDE web console: ${url}/`,
    "Sign in as the demo user with this one-time link (works once, for 24 hours; every start",
    "prints a new one):",
    "",
    `  ${new URL(signIn.path, url).href}`,
    "",
  ].join("\n");
}
