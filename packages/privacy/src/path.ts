/**
 * Formats a location inside a JSON document the way every error of the render state names
 * it: property names joined with `.`, array indexes in brackets (`team[0].email`). A property
 * name that is not a plain identifier (see below) is written as a bracketed JSON string
 * (`team[0]["e-mail"]`), so every path reads back to exactly one location. The document
 * itself is the empty path.
 */
export function formatPath(segments: ReadonlyArray<string | number>): string {
  let path = "";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) path += path === "" ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

// A plain identifier as the spec defines it: an ASCII letter or `_`, then ASCII letters,
// digits or `_`. Anything else (`$`, `-`, non-ASCII letters, the empty name) is quoted.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
