/**
 * Paths into the delivery document, written the way the CLAUDE.md spec writes them: keys
 * joined by `.`, array elements as `[index]`, keys that are not plain identifiers as a JSON
 * string in brackets, and the document itself as the empty path.
 */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${String(segment)}]`;
    else if (IDENTIFIER.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** True when the value at `path` is absent from `input` (a key that is not there). */
export function isAbsentAt(input: unknown, path: readonly PathSegment[]): boolean {
  let current: unknown = input;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return false;
    if (Array.isArray(current)) {
      if (typeof segment !== "number" || segment >= current.length) return true;
      current = current[segment] as unknown;
    } else {
      if (typeof segment !== "string" || !Object.hasOwn(current, segment)) return true;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current === undefined;
}
