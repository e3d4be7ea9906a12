import type { MigrationFolder } from "@talkide/service-kit";

/** The gateway's own tables: a host runs this folder beside its own migrations. */
export const GATEWAY_MIGRATIONS: MigrationFolder = {
  namespace: "gateway",
  folder: new URL("./migrations/", import.meta.url),
};
