export { PortsError, type PortsErrorCode } from "./errors.ts";
export { derivePorts, PLATFORM_PORTS, PROJECT_ID_RANGE, type ProjectPorts } from "./derive.ts";
export { renderProjectYml } from "./project-yml-render.ts";
export { parseProjectYml, MAX_PROJECT_YML_BYTES, type ProjectYml } from "./project-yml-parse.ts";
export { probePort, probePorts, type PortProbe, type ProbeOptions } from "./probe.ts";
export type { PortHolder } from "./socket-table.ts";
