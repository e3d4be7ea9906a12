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
