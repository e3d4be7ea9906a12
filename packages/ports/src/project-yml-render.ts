import { derivePorts, PLATFORM_PORTS } from "./derive.ts";

/** The URL a project's server is reached at on its own machine. */
export function localUrl(port: number): string {
  return `http://localhost:${port}`;
}

/**
 * The exact bytes of `.talkide/project.yml` for a project (contract section 3): plain YAML,
 * `\n` line ends, one trailing newline, no timestamps — a pure function of the id, so the
 * backend can rewrite it before every spawn without ever changing it. Throws
 * `PortsError("invalid_project_id")` for an id outside 1–999.
 */
export function renderProjectYml(projectId: number): string {
  const ports = derivePorts(projectId);
  return [
    `# Generated from project id ${projectId}. Do not edit: rewritten before every agent spawn.`,
    "version: 1",
    "project:",
    `  id: ${projectId}`,
    "ports:",
    `  be: ${ports.be}`,
    `  fe: ${ports.fe}`,
    "urls:",
    `  be: ${localUrl(ports.be)}`,
    `  fe: ${localUrl(ports.fe)}`,
    "platform:",
    `  reserved_ports: [${PLATFORM_PORTS.be}, ${PLATFORM_PORTS.fe}]`,
    "",
  ].join("\n");
}
