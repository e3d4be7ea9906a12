/**
 * Every way a project id, a project.yml file or a port probe can be wrong, as a stable code.
 * Scripts and other runtimes match on these strings, so a code is never renamed or reused.
 */
export type PortsErrorCode =
  /** The project.yml text is not one well-formed YAML document. */
  | "not_yaml"
  /** The project.yml text is longer than any file this package writes could be. */
  | "file_too_large"
  /** A key that the format does not have. */
  | "unknown_field"
  /** A key that the format requires is absent. */
  | "missing_field"
  /** A value of the wrong type or shape. */
  | "invalid_field"
  /** `version` is not 1: a file written for another version of the format. */
  | "unsupported_version"
  /** A project id that is not an integer from 1 to 999. */
  | "invalid_project_id"
  /** A port or URL in the file names one of the platform's own ports. */
  | "platform_port"
  /** A port in the file is not the one derived from the file's project id. */
  | "port_mismatch"
  /** A URL in the file is not `http://localhost:<derived port>`. */
  | "url_mismatch"
  /** `platform.reserved_ports` is not exactly the platform's ports. */
  | "reserved_ports_mismatch"
  /** Every value is right but the bytes are not the ones this package writes (the file was edited). */
  | "not_canonical"
  /** A port number passed to probePort that is not an integer from 1 to 65535. */
  | "invalid_port"
  /** The operating system refused the probe for a reason other than the port being in use. */
  | "probe_failed";

/**
 * The one error type of this package. `path` points into the input (`ports.be`,
 * `platform.reserved_ports[1]`, `projectId`); it is `""` when the whole input is at fault.
 */
export class PortsError extends Error {
  readonly code: PortsErrorCode;
  readonly path: string;

  constructor(code: PortsErrorCode, path: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PortsError";
    this.code = code;
    this.path = path;
  }
}
