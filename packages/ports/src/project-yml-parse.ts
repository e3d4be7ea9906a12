import { parseDocument } from "yaml";
import { z } from "zod";
import { assertProjectId, derivePorts, PLATFORM_PORTS, type ProjectPorts } from "./derive.ts";
import { PortsError } from "./errors.ts";
import { formatPath } from "./field-path.ts";
import { localUrl, renderProjectYml } from "./project-yml-render.ts";

/** The values of a valid `.talkide/project.yml`, keyed exactly as in the file. */
export interface ProjectYml {
  readonly version: 1;
  readonly project: { readonly id: number };
  readonly ports: ProjectPorts;
  readonly urls: { readonly be: string; readonly fe: string };
  readonly platform: { readonly reserved_ports: readonly [9090, 5200] };
}

/**
 * The largest file worth parsing, in UTF-8 bytes. Every file this package writes is under 300
 * bytes; the cap keeps a runaway or hostile file from costing more than a glance.
 */
export const MAX_PROJECT_YML_BYTES = 4096;

const PORT_NAMES = ["be", "fe"] as const;

// The shape only. Whether the values agree with the project id is checked afterwards, in a
// fixed order, so that every tampered file gets one deterministic, specific error.
const projectYmlShape = z.strictObject({
  version: z.number(),
  project: z.strictObject({ id: z.number() }),
  ports: z.strictObject({ be: z.number().int(), fe: z.number().int() }),
  urls: z.strictObject({ be: z.string(), fe: z.string() }),
  platform: z.strictObject({ reserved_ports: z.array(z.number()) }),
});

/**
 * Reads `.talkide/project.yml` and accepts it only if it is exactly what
 * {@link renderProjectYml} writes for the id it names. A YAML library parses, a zod schema
 * checks the shape, then the values are checked against the id's derivation. Anything else —
 * another version, an extra key, a port that is not derived from the id, a platform port, or
 * an edit that keeps the values but changes the bytes — throws a {@link PortsError}.
 *
 * Accepting only the 999 canonical files is deliberate: tools that stop processes act on
 * these values, and scripts read them with `yq`, so neither may see a hand-edited file.
 */
export function parseProjectYml(text: string): ProjectYml {
  // A UTF-16 code unit never takes less than one UTF-8 byte, so a long string is refused
  // before it is encoded.
  if (text.length > MAX_PROJECT_YML_BYTES || utf8Length(text) > MAX_PROJECT_YML_BYTES) {
    throw tooLarge();
  }
  const root = parseYaml(text);
  checkVersion(root);
  const shaped = projectYmlShape.safeParse(root);
  if (!shaped.success) throw shapeError(shaped.error.issues, root);
  const values = shaped.data;

  assertProjectId(values.project.id, "project.id");
  const derived = derivePorts(values.project.id);
  for (const name of PORT_NAMES) checkPort(values.ports[name], derived[name], name);
  for (const name of PORT_NAMES) checkUrl(values.urls[name], derived[name], name);
  checkReservedPorts(values.platform.reserved_ports);

  if (text !== renderProjectYml(values.project.id)) {
    throw new PortsError(
      "not_canonical",
      "",
      "project.yml has the right values but not the bytes TalkIDE writes: it was edited by hand " +
        "or by a tool. Do not edit it; TalkIDE rewrites it before every agent spawn.",
    );
  }
  return {
    version: 1,
    project: { id: values.project.id },
    ports: { be: derived.be, fe: derived.fe },
    urls: { be: localUrl(derived.be), fe: localUrl(derived.fe) },
    platform: { reserved_ports: [PLATFORM_PORTS.be, PLATFORM_PORTS.fe] },
  };
}

/**
 * The text of a project.yml read as bytes: the size is checked first, then the bytes must be
 * strict UTF-8 (a stray byte is an error, not a replacement character; a byte order mark is
 * kept, so that parsing refuses it as not canonical).
 */
export function decodeProjectYml(bytes: Uint8Array): string {
  if (bytes.length > MAX_PROJECT_YML_BYTES) throw tooLarge();
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new PortsError(
      "not_yaml",
      "",
      "project.yml is not UTF-8 text, so it is not a generated file.",
      {
        cause: error,
      },
    );
  }
}

function tooLarge(): PortsError {
  return new PortsError(
    "file_too_large",
    "",
    `project.yml is larger than ${MAX_PROJECT_YML_BYTES} bytes; a generated file is under 300, so this is not one.`,
  );
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

function parseYaml(text: string): unknown {
  const doc = parseDocument(text, {
    version: "1.2",
    schema: "core",
    uniqueKeys: true,
    prettyErrors: true,
  });
  // Warnings (an unknown tag, for example) mean the text relies on YAML features that no
  // generated file uses; treat them like syntax errors rather than guess.
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined) {
    throw new PortsError(
      "not_yaml",
      "",
      `project.yml is not a well-formed YAML document: ${firstLine(problem.message)}.`,
    );
  }
  try {
    // No generated file uses anchors or aliases; refusing them also rules out alias bombs.
    return doc.toJS({ maxAliasCount: 0 }) as unknown;
  } catch (error) {
    throw new PortsError(
      "not_yaml",
      "",
      "project.yml uses YAML aliases, which a generated file never does.",
      { cause: error },
    );
  }
}

function checkVersion(root: unknown): asserts root is Record<string, unknown> {
  if (!isPlainObject(root)) {
    throw new PortsError(
      "invalid_field",
      "",
      "project.yml must be a YAML mapping with the keys version, project, ports, urls and platform.",
    );
  }
  if (!Object.hasOwn(root, "version")) {
    throw new PortsError("missing_field", "version", "project.yml has no `version` key.");
  }
  if (root["version"] !== 1) {
    throw new PortsError(
      "unsupported_version",
      "version",
      "project.yml is not version 1 of the format, the only one this tool reads. " +
        "It was written by another TalkIDE release or by something else.",
    );
  }
}

function checkPort(actual: number, expected: number, name: (typeof PORT_NAMES)[number]): void {
  const path = `ports.${name}`;
  if (isPlatformPort(actual)) {
    throw new PortsError(
      "platform_port",
      path,
      `${path} is ${actual}, one of the TalkIDE platform's own ports; no project may use it.`,
    );
  }
  if (actual !== expected) {
    throw new PortsError(
      "port_mismatch",
      path,
      `${path} is ${actual}, but the project id in the file gives ${expected}.`,
    );
  }
}

function checkUrl(actual: string, port: number, name: (typeof PORT_NAMES)[number]): void {
  const path = `urls.${name}`;
  const urlPort = portOfUrl(actual);
  if (urlPort !== null && isPlatformPort(urlPort)) {
    throw new PortsError(
      "platform_port",
      path,
      `${path} points at port ${urlPort}, one of the TalkIDE platform's own ports.`,
    );
  }
  if (actual !== localUrl(port)) {
    throw new PortsError("url_mismatch", path, `${path} must be ${localUrl(port)}.`);
  }
}

function checkReservedPorts(actual: readonly number[]): void {
  if (actual.length !== 2 || actual[0] !== PLATFORM_PORTS.be || actual[1] !== PLATFORM_PORTS.fe) {
    throw new PortsError(
      "reserved_ports_mismatch",
      "platform.reserved_ports",
      `platform.reserved_ports must be [${PLATFORM_PORTS.be}, ${PLATFORM_PORTS.fe}].`,
    );
  }
}

function shapeError(issues: readonly z.core.$ZodIssue[], root: unknown): PortsError {
  const issue = issues[0];
  if (issue === undefined) return new PortsError("invalid_field", "", "project.yml is invalid.");
  if (issue.code === "unrecognized_keys") {
    const path = formatPath([...issue.path, issue.keys[0] ?? ""]);
    return new PortsError(
      "unknown_field",
      path,
      `project.yml has a key the format does not have: ${path}.`,
    );
  }
  const path = formatPath(issue.path);
  if (issue.code === "invalid_type" && isMissing(root, issue.path)) {
    return new PortsError("missing_field", path, `project.yml has no \`${path}\` key.`);
  }
  return new PortsError("invalid_field", path, `project.yml: ${path} ${describeIssue(issue)}.`);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return `must be ${article(issue.expected)}`;
  if (issue.code === "too_big" || issue.code === "too_small") return "is out of range";
  return "has an invalid value";
}

function article(expected: string): string {
  if (expected === "object") return "a mapping";
  if (expected === "array") return "a list";
  if (expected === "int") return "an integer";
  return `a ${expected}`;
}

function isMissing(root: unknown, path: readonly PropertyKey[]): boolean {
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(parent)) return false;
    parent = parent[String(key)];
  }
  const last = path.at(-1);
  return isPlainObject(parent) && last !== undefined && !Object.hasOwn(parent, String(last));
}

function isPlatformPort(port: number): boolean {
  return port === PLATFORM_PORTS.be || port === PLATFORM_PORTS.fe;
}

function portOfUrl(text: string): number | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.port !== "") return Number(url.port);
  if (url.protocol === "http:") return 80;
  if (url.protocol === "https:") return 443;
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? "").replace(/[.:]$/, "");
}
