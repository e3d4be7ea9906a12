// Writes the event table of apps/be/API.md from the one event contract, `TURN_EVENTS` in
// packages/be-api (a name, its payload's schema and its description), so the documented list
// cannot miss an event the backend emits. Run `pnpm run generate:api-events` after changing an
// event; `scripts/generate-api-events.test.ts` fails while API.md is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { TURN_EVENTS } from "../packages/be-api/src/events.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const API_MD = "apps/be/API.md";
export const GENERATE_EVENTS_COMMAND = "pnpm run generate:api-events";
const START = `<!-- events: generated from packages/be-api by \`${GENERATE_EVENTS_COMMAND}\`; do not edit -->`;
const END = "<!-- events: end -->";

interface JsonSchema {
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly items?: JsonSchema;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly description?: string;
}

/** A payload's shape as API.md writes it: names, and the structure of objects, lists and enums. */
function shape(schema: JsonSchema): string | null {
  if (schema.properties !== undefined) {
    const fields = Object.entries(schema.properties).map(([name, field]) => {
      const optional = schema.required?.includes(name) === true ? "" : "?";
      const inner = shape(field);
      return inner === null ? `${name}${optional}` : `${name}${optional}: ${inner}`;
    });
    return `{${fields.join(", ")}}`;
  }
  if (schema.enum !== undefined) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.items !== undefined) {
    const item = shape(schema.items);
    return item === null ? null : `[${item}]`;
  }
  if (schema.anyOf !== undefined) {
    const shown = schema.anyOf.filter((s) => s.type !== "null").map(shape);
    const nullable = schema.anyOf.some((s) => s.type === "null") ? " | null" : "";
    return shown.every((s) => s !== null) ? `${shown.join(" | ")}${nullable}` : null;
  }
  return null;
}

function row(name: string, schema: (typeof TURN_EVENTS)[keyof typeof TURN_EVENTS]): string {
  // The schema's own method: the root workspace does not depend on zod.
  const json = schema.toJSONSchema() as JsonSchema;
  const data = `\`${shape(json) ?? "{}"}\`${json.description === undefined ? "" : `: ${json.description}`}`;
  return `| \`${name}\` | ${data.replaceAll("|", "\\|")} |`;
}

/** The generated table, formatted as Prettier formats API.md. */
export async function eventTable(): Promise<string> {
  const table = [
    "| `event` | `data` |",
    "| --- | --- |",
    ...Object.entries(TURN_EVENTS).map(([name, schema]) => row(name, schema)),
  ].join("\n");
  const options = (await resolveConfig(join(ROOT, API_MD))) ?? {};
  return format(table, { ...options, parser: "markdown" });
}

/** API.md with its event table replaced by the generated one. */
export async function generatedApiMd(current: string): Promise<string> {
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start === -1 || end < start) {
    throw new Error(
      `${API_MD} has lost its event table markers (${START} … ${END}); put them back.`,
    );
  }
  return `${current.slice(0, start + START.length)}\n\n${await eventTable()}\n${current.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(ROOT, API_MD);
  writeFileSync(path, await generatedApiMd(readFileSync(path, "utf8")));
  console.log(`wrote the event table of ${API_MD} from packages/be-api`);
}
