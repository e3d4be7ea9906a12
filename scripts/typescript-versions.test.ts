import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { expect, it } from "vitest";

// The workspace installs two TypeScripts (see pnpm-workspace.yaml): 7 runs as `tsc` (the root
// typecheck, every package's build, the release's builds), 5.9 is the library the linters load.
// pnpm decides which `tsc` a folder gets from the versions it lists, so a dependency edit could
// quietly bring 5.9's slower compiler back; this holds both halves.

const root = fileURLToPath(new URL("..", import.meta.url));

function builtWithTsc(): string[] {
  return ["packages", "apps"].flatMap((parent) =>
    readdirSync(join(root, parent)).flatMap((name) => {
      const manifest = JSON.parse(
        readFileSync(join(root, parent, name, "package.json"), "utf8"),
      ) as { scripts?: Record<string, string> };
      return (manifest.scripts?.["build"] ?? "").startsWith("tsc ") ? [join(parent, name)] : [];
    }),
  );
}

it("runs TypeScript 7 as tsc at the root and in every package built with tsc", async () => {
  const folders = ["", ...builtWithTsc()];
  expect(folders.length).toBeGreaterThan(10);
  const versions = await Promise.all(
    folders.map(async (folder) => {
      const { stdout } = await execa(join(root, folder, "node_modules", ".bin", "tsc"), [
        "--version",
      ]);
      return [folder, stdout] as const;
    }),
  );
  for (const [folder, version] of versions)
    expect([folder, version]).toEqual([folder, expect.stringMatching(/^Version 7\./u)]);
});

it("keeps TypeScript 5.9 as the library the linters load", async () => {
  const { version } = (await import("typescript")).default;
  expect(version).toMatch(/^5\.9\./u);
});
