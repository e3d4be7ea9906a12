import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

it("the import-cycle check fails on a cycle (type-only imports count), prints it, and passes the rest", async () => {
  // `pnpm run cycles` with its configuration, on two fixture folders instead of the sources:
  // one closes a cycle, the other imports in one direction only. One run keeps it fast.
  const result = await execa(
    "depcruise",
    [
      "--config",
      ".dependency-cruiser.js",
      "--output-type",
      "err",
      "scripts/lint-fixtures/import-cycle",
      "scripts/lint-fixtures/acyclic-imports",
    ],
    { cwd: root, preferLocal: true, reject: false, all: true },
  );
  expect(result.exitCode).not.toBe(0);
  expect(result.all).toContain("no-import-cycle:");
  for (const module of ["order.ts", "customer.ts", "invoice.ts"]) {
    expect(result.all).toContain(`scripts/lint-fixtures/import-cycle/${module}`);
  }
  expect(result.all).not.toContain("scripts/lint-fixtures/acyclic-imports/");
});
