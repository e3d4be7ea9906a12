// The error path format of spec/claude-md.md ("Path format"): keys joined with ".", array
// elements as [index] in input order, keys that are not plain identifiers as ["json string"],
// and "" for the document itself.

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function keyPath(parent: string, key: string): string {
  if (!PLAIN_IDENTIFIER.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent === "" ? key : `${parent}.${key}`;
}

export function elementPath(parent: string, index: number): string {
  return `${parent}[${String(index)}]`;
}
