import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { REAL_CLAUDE_VERSION } from "../packages/claude-cli/src/testing/real-claude.ts";
import { WIRE_MANIFEST_SUITES, WIRE_REPIN_COMMAND, wireManifestFiles } from "./wire-repin.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("the apps' wire manifests", () => {
  it("are one pin file per app, named for the pinned Claude Code (no stale version left)", () => {
    const expected = WIRE_MANIFEST_SUITES.map(
      ({ dir, prefix }) => `${dir}/${prefix}${REAL_CLAUDE_VERSION}.json`,
    ).sort();
    if (JSON.stringify(wireManifestFiles(root)) !== JSON.stringify(expected)) {
      expect.fail(
        `The wire manifests are ${JSON.stringify(wireManifestFiles(root))}, expected ${JSON.stringify(expected)} for claude ${REAL_CLAUDE_VERSION}: run \`sh scripts/toolchain.sh ${WIRE_REPIN_COMMAND}\`, read the pinned blocks and commit the result.`,
      );
    }
  });
});
