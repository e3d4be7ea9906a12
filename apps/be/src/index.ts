export { ConfigError } from "@talkide/service-kit";
export { loadConfig, type Config } from "./config.ts";
export { startService, type RunningService, type ServiceOptions } from "./service.ts";
export { runCli, type CliIo } from "./cli.ts";
export { prepareSpawnContext, renderContext, type ContextLayout } from "./context/prepare.ts";
export { writeFileIfChanged } from "./context/write-if-changed.ts";
