import { PortsError } from "./errors.ts";

/** The TalkIDE platform's own ports. No project may ever use, probe for takeover, or stop them. */
export const PLATFORM_PORTS = Object.freeze({ be: 9090, fe: 5200 } as const);

/** The ids for which the derivation below is collision-free. */
export const PROJECT_ID_RANGE = Object.freeze({ min: 1, max: 999 } as const);

const BE_BASE = 8090;
const FE_BASE = 5200;

export interface ProjectPorts {
  readonly be: number;
  readonly fe: number;
}

/**
 * A project's ports: BE = 8090 + id, FE = 5200 + id.
 *
 * Only ids 1–999 are accepted. For those, BE ports fill 8091–9089 and FE ports 5201–6199: two
 * disjoint ranges that contain neither 9090 nor 5200. Past the range the formula breaks: id 1000
 * would get BE 9090, the platform itself, and id 2891 would get FE 8091, the BE port of project
 * 1. So an id outside the range is an error, never a port.
 */
export function derivePorts(projectId: number): ProjectPorts {
  assertProjectId(projectId, "projectId");
  return { be: BE_BASE + projectId, fe: FE_BASE + projectId };
}

export function isValidProjectId(value: unknown): value is number {
  return (
    typeof value === "number" &&
    Number.isInteger(value) &&
    value >= PROJECT_ID_RANGE.min &&
    value <= PROJECT_ID_RANGE.max
  );
}

/** Throws `invalid_project_id` at `path` unless `value` is an integer from 1 to 999. */
export function assertProjectId(value: unknown, path: string): asserts value is number {
  if (isValidProjectId(value)) return;
  throw new PortsError(
    "invalid_project_id",
    path,
    `The project id must be an integer from ${PROJECT_ID_RANGE.min} to ${PROJECT_ID_RANGE.max}; ` +
      `got ${describeValue(value)}. Ids outside that range would collide with the platform's ` +
      `ports (9090, 5200) or with another project's ports.`,
  );
}

/** A short, safe rendering of a value for an error message (ids are not personal data). */
function describeValue(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 20))}`;
  if (value === null) return "null";
  return `a value of type ${Array.isArray(value) ? "array" : typeof value}`;
}
