import type { DaemonExtension } from "./extension.ts";
import { hubExtension } from "./hub/extension.ts";

/**
 * The extensions `talkide-daemon start` loads. The local message hub adds itself here when
 * it lands (`src/hub/`); tests and embedders can pass their own list to `startDaemon`.
 */
export const builtInExtensions: readonly DaemonExtension[] = [hubExtension()];
