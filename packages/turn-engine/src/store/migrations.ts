import type { MigrationFolder } from "@talkide/service-kit";

/**
 * The engine's own tables: a host runs this folder before its own migrations (a host's
 * migration that moves its earlier rows here needs them to exist).
 */
export const ENGINE_MIGRATIONS: MigrationFolder = {
  namespace: "engine",
  folder: new URL("./migrations/", import.meta.url),
};
