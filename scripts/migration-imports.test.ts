import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What a migration may import: Kysely itself, and the frozen copies beside it. */
const MIGRATION_PACKAGES = new Set(["kysely", "kysely/migration"]);

/**
 * Every module a file names: static imports and re-exports (type-only ones too), side-effect
 * imports, dynamic `import()` and `require()`. A dynamic one whose name is computed counts as
 * a name no rule admits.
 */
function importedNames(source: string): string[] {
  const names: string[] = [];
  const patterns = [
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\b(?:import|require)\s*\(\s*(?:["'`]([^"'`]+)["'`]|([^)\s][^)]*))/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) {
      names.push(match[1] ?? `<computed: ${match[2] ?? ""}>`);
    }
  }
  return names;
}

const isSource = (name: string): boolean =>
  /\.(?:[cm]?[jt]s)$/.test(name) && !/\.(?:test|d)\.[cm]?[jt]s$/.test(name);

function walk(dir: string, visit: (path: string, isDir: boolean) => boolean): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) {
      continue;
    }
    const path = join(dir, entry.name);
    if (visit(path, entry.isDirectory()) && entry.isDirectory()) walk(path, visit);
  }
}

/** The `migrations` folders of every app and package (each one's sources). */
function migrationFolders(): string[] {
  const folders: string[] = [];
  for (const top of ["apps", "packages"]) {
    walk(join(root, top), (path, isDir) => {
      if (!isDir) return false;
      if (path.endsWith(`${sep}migrations`)) {
        folders.push(path);
        return false;
      }
      return true;
    });
  }
  return folders.sort();
}

const inside = (dir: string, path: string): boolean => !relative(dir, path).startsWith("..");

/**
 * Why a file of a migrations folder imports what it may not: a migration (`<folder>/*.ts`)
 * only `kysely` and files under `<folder>/frozen/`; a frozen file only other frozen files.
 */
function migrationImportFaults(folder: string, file: string, source: string): string[] {
  const frozen = join(folder, "frozen");
  const isFrozen = inside(frozen, file);
  return importedNames(source).flatMap((name) => {
    if (name.startsWith(".")) {
      if (inside(frozen, resolve(dirname(file), name))) return [];
    } else if (!isFrozen && MIGRATION_PACKAGES.has(name)) {
      return [];
    }
    return [`${relative(root, file)} imports ${name}`];
  });
}

function filesUnder(dir: string): string[] {
  const files: string[] = [];
  walk(dir, (path, isDir) => {
    if (!isDir && isSource(path)) files.push(path);
    return true;
  });
  return files;
}

/**
 * A migration runs once per database, possibly long after it shipped (a database of an old
 * release runs every migration it missed when it meets a new one): it must do then what it
 * did on release day, so it never imports code that can change after that.
 */
describe("migrations", () => {
  const folders = migrationFolders();

  it("are found in every service", () => {
    expect(folders.map((folder) => relative(root, folder))).toEqual(
      expect.arrayContaining([
        join("apps", "be", "src", "db", "migrations"),
        join("apps", "daemon", "src", "db", "migrations"),
        join("apps", "hub", "src", "migrations"),
      ]),
    );
    for (const folder of folders) expect(filesUnder(folder).length, folder).toBeGreaterThan(0);
  });

  it("import nothing but kysely and the frozen copies beside them", () => {
    const faults = folders.flatMap((folder) =>
      filesUnder(folder).flatMap((file) =>
        migrationImportFaults(folder, file, readFileSync(file, "utf8")),
      ),
    );
    expect(faults).toEqual([]);
  });

  it("have frozen copies that nothing else imports (tests aside)", () => {
    const frozenFolders = folders.map((folder) => join(folder, "frozen"));
    const faults: string[] = [];
    for (const top of ["apps", "packages"]) {
      for (const file of filesUnder(join(root, top))) {
        if (folders.some((folder) => inside(folder, file))) continue;
        for (const name of importedNames(readFileSync(file, "utf8"))) {
          const target = resolve(dirname(file), name);
          if (name.startsWith(".") && frozenFolders.some((dir) => inside(dir, target))) {
            faults.push(`${relative(root, file)} imports ${name}`);
          }
        }
      }
    }
    expect(faults).toEqual([]);
  });

  it("are held to it: live code, packages and computed names are each a fault", () => {
    const folder = join(root, "apps", "be", "src", "db", "migrations");
    const migration = join(folder, "0099_example.ts");
    const source = [
      'import { sql, type Kysely } from "kysely";',
      'import type { Migration } from "kysely/migration";',
      'import { rule } from "./frozen/0099-rule.ts";',
      'import { confusableSkeleton } from "../../domain/look-alikes.ts";',
      'import type { DatabaseSchema } from "../schema.ts";',
      'export { parseRenderState } from "@talkide/renderer";',
      'import "./0098_other.ts";',
      'const zod = await import("zod");',
      "const other = await import(name);",
      'const fs = require("node:fs");',
    ].join("\n");
    expect(migrationImportFaults(folder, migration, source)).toEqual([
      "apps/be/src/db/migrations/0099_example.ts imports ../../domain/look-alikes.ts",
      "apps/be/src/db/migrations/0099_example.ts imports ../schema.ts",
      "apps/be/src/db/migrations/0099_example.ts imports @talkide/renderer",
      "apps/be/src/db/migrations/0099_example.ts imports ./0098_other.ts",
      "apps/be/src/db/migrations/0099_example.ts imports zod",
      "apps/be/src/db/migrations/0099_example.ts imports <computed: name>",
      "apps/be/src/db/migrations/0099_example.ts imports node:fs",
    ]);
    const frozen = join(folder, "frozen", "0099-rule.ts");
    expect(
      migrationImportFaults(
        folder,
        frozen,
        'import data from "./0099-data.json" with { type: "json" };\nimport { sql } from "kysely";\nimport { x } from "../0009_salutation_skeletons.ts";',
      ),
    ).toEqual([
      "apps/be/src/db/migrations/frozen/0099-rule.ts imports kysely",
      "apps/be/src/db/migrations/frozen/0099-rule.ts imports ../0009_salutation_skeletons.ts",
    ]);
  });
});
