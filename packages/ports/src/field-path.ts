/**
 * Formats a path into the input the way every error of this package names it:
 * `ports.be`, `platform.reserved_ports[1]`, and `["odd key"]` for a key that is not a plain name.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(key))) {
      out += out === "" ? String(key) : `.${String(key)}`;
    } else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
