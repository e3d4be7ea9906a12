import type { MigrationFolder } from "@talkide/service-kit";

/** The daemon's own tables; extensions bring their folders under their own namespaces. */
export const CORE_MIGRATIONS: MigrationFolder = {
  namespace: "daemon",
  folder: new URL("./migrations/", import.meta.url),
};
