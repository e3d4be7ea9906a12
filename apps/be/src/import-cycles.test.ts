import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = dirname(fileURLToPath(import.meta.url));
/** A relative import or re-export, type-only ones included: they couple modules as well. */
const RELATIVE_IMPORT = /(?:^|\n)\s*(?:import|export)\b[^"';]*?from\s+"(\.\.?\/[^"]+\.ts)"/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every cycle of relative imports, each as the list of files it passes through. */
function importCycles(files: readonly string[]): string[][] {
  const edges = new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)].map((m) =>
        resolve(dirname(file), m[1] ?? ""),
      ),
    ]),
  );
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles.map((cycle) => cycle.map((file) => relative(SRC, file)));
}

describe("the backend's modules", () => {
  it("import each other without cycles", () => {
    expect(importCycles(sourceFiles(SRC))).toEqual([]);
  });
});
