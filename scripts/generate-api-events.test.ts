import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { API_MD, GENERATE_EVENTS_COMMAND, generatedApiMd } from "./generate-api-events.ts";
import { TURN_EVENTS } from "../packages/be-api/src/events.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("the event table of apps/be/API.md", () => {
  it("is what the event contract generates", async () => {
    const current = readFileSync(join(root, API_MD), "utf8");
    if (current !== (await generatedApiMd(current))) {
      expect.fail(
        `${API_MD}'s event table is not what packages/be-api's TURN_EVENTS generates: run \`${GENERATE_EVENTS_COMMAND}\` and commit the result.`,
      );
    }
  });

  it("lists every event of the contract", async () => {
    const table = await generatedApiMd(readFileSync(join(root, API_MD), "utf8"));
    for (const name of Object.keys(TURN_EVENTS)) expect(table).toContain(`| \`${name}\``);
  });

  it("refuses a file whose markers are gone instead of guessing where the table goes", async () => {
    await expect(generatedApiMd("# API\n")).rejects.toThrow(/markers/);
  });
});
