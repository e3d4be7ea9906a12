import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import type { RecordedRequest } from "./fake-messages-api.ts";

/**
 * Contract section 6 at the wire: every block of every request a turn sends consists only of
 * the runtime's own fixed text (pinned per runtime version by sha256 and length, never stored
 * as text), our rendered files, the agent file or standing prompt, the user's message or wake
 * prompt, and the session's earlier successful turns. `classifyRequests` labels each block and
 * lists what it could not place, with where it stood in which request.
 *
 * How a block is read: every text we know (ours) is cut out of it and replaced by a marker
 * (`<<file:CLAUDE.md>>`, `<<message>>`, …), then every dynamic value the runtime adds (paths,
 * session id, date, OS version) is replaced by a marker too. What is left is the runtime's own
 * text; it must be all markers (a block wholly ours), or its sha256 must be pinned.
 */

export interface OurText {
  /** `file:CLAUDE.md`, `agent-file`, `standing-prompt`, `message`, `earlier-turn`, … */
  readonly label: string;
  readonly text: string;
  /** Cut out of a block whatever its length (a short file's text in a reminder). */
  readonly embedded?: boolean;
}

export interface RuntimePin {
  readonly sha256: string;
  readonly bytes: number;
}

/** Label → pin, for one runtime version. Holds hashes and lengths only, never the text. */
export type RuntimePins = Readonly<Record<string, RuntimePin>>;

export interface ManifestInput {
  readonly requests: readonly RecordedRequest[];
  /** Per request: the texts that are ours in it (earlier turns included). */
  readonly ours: (index: number) => readonly OurText[];
  /** Dynamic values the runtime writes into its own text: marker name → value. */
  readonly dynamic: Readonly<Record<string, string>>;
  /**
   * Dynamic parts found by shape (a machine's OS version, the billing header's per-session
   * digits); `ours` marks a part that is our text (e.g. the plugin's agent lines).
   */
  readonly patterns?: ReadonlyArray<{
    readonly marker: string;
    readonly pattern: RegExp;
    readonly ours?: boolean;
  }>;
  readonly pins: RuntimePins;
}

export interface ClassifiedBlock {
  readonly request: number;
  /** `system[2]`, `messages[0].content[3]` */
  readonly where: string;
  readonly role: string;
  readonly bytes: number;
  /** `ours: file:CLAUDE.md + message`, `runtime: <pin label>`, or `runtime: <pin label> + ours: …` */
  readonly kind: string;
}

export interface UnclassifiedBlock {
  readonly request: number;
  readonly where: string;
  readonly role: string;
  readonly bytes: number;
  /** sha256 and length of the runtime part, as a pin would hold them. */
  readonly pin: RuntimePin;
  /** The runtime part, with our texts and the dynamic values marked (for the report only). */
  readonly normalized: string;
}

export interface WireManifest {
  readonly blocks: readonly ClassifiedBlock[];
  readonly unclassified: readonly UnclassifiedBlock[];
}

const MIN_EMBEDDED_LENGTH = 40;
const MARKER_ONLY = /^(?:<<[^<>]+>>|\s)*$/u;

export function classifyRequests(input: ManifestInput): WireManifest {
  const byHash = new Map(Object.entries(input.pins).map(([label, pin]) => [pin.sha256, label]));
  const blocks: ClassifiedBlock[] = [];
  const unclassified: UnclassifiedBlock[] = [];
  input.requests.forEach((request, index) => {
    for (const block of requestBlocks(request)) {
      const { normalized, used } = normalize(
        block.text,
        input.ours(index),
        input.dynamic,
        input.patterns ?? [],
      );
      const pin = pinOf(normalized);
      const oursPart = used.length > 0 ? `ours: ${[...new Set(used)].join(" + ")}` : "";
      const base = { request: index, where: block.where, role: block.role, bytes: pin.bytes };
      if (MARKER_ONLY.test(normalized) && used.length > 0) {
        blocks.push({ ...base, bytes: byteLength(block.text), kind: oursPart });
        continue;
      }
      const label = byHash.get(pin.sha256);
      if (label === undefined) {
        unclassified.push({ ...base, bytes: byteLength(block.text), pin, normalized });
      } else {
        blocks.push({
          ...base,
          bytes: byteLength(block.text),
          kind: `runtime: ${label}${oursPart === "" ? "" : ` + ${oursPart}`}`,
        });
      }
    }
  });
  return { blocks, unclassified };
}

/** A readable report of what could not be placed, for a failing test. */
export function formatUnclassified(
  unclassified: readonly UnclassifiedBlock[],
  requestLabels: readonly string[] = [],
): string {
  return unclassified
    .map((block) =>
      [
        `request ${String(block.request)}${requestLabels[block.request] === undefined ? "" : ` (${requestLabels[block.request] ?? ""})`}, ${block.where} (role ${block.role}, ${String(block.bytes)} bytes):`,
        `  runtime part: sha256 ${block.pin.sha256}, ${String(block.pin.bytes)} bytes; no pin has this hash.`,
        `  it reads: ${JSON.stringify(block.normalized.slice(0, 600))}${block.normalized.length > 600 ? " …" : ""}`,
      ].join("\n"),
    )
    .join("\n\n");
}

/**
 * Pins for the unclassified blocks under the given labels: what an update mode writes after a
 * person read the report and judged each block to be the runtime's own text.
 */
export function pinsFor(
  unclassified: readonly UnclassifiedBlock[],
  label: (block: UnclassifiedBlock) => string,
): Record<string, RuntimePin> {
  const pins: Record<string, RuntimePin> = {};
  const seen = new Set<string>();
  for (const block of unclassified) {
    if (seen.has(block.pin.sha256)) continue;
    seen.add(block.pin.sha256);
    pins[label(block)] = block.pin;
  }
  return pins;
}

export async function readPins(path: string): Promise<RuntimePins> {
  return JSON.parse(await readFile(path, "utf8")) as RuntimePins;
}

export async function writePins(path: string, pins: RuntimePins): Promise<void> {
  const sorted = Object.fromEntries(Object.entries(pins).sort(([a], [b]) => a.localeCompare(b)));
  await writeFile(path, `${JSON.stringify(sorted, null, 2)}\n`);
}

interface RawBlock {
  readonly where: string;
  readonly role: string;
  readonly text: string;
}

/** Every block of a request: system blocks, then each message's content blocks of any type. */
function requestBlocks(request: RecordedRequest): RawBlock[] {
  const body = (request.body ?? {}) as { system?: unknown; messages?: unknown };
  const blocks: RawBlock[] = [];
  const system = body.system;
  if (typeof system === "string") blocks.push({ where: "system", role: "system", text: system });
  else if (Array.isArray(system))
    system.forEach((block: unknown, i) => {
      blocks.push({ where: `system[${String(i)}]`, role: "system", text: blockText(block) });
    });
  if (Array.isArray(body.messages)) {
    body.messages.forEach((raw: unknown, m) => {
      const message = (raw ?? {}) as { role?: unknown; content?: unknown };
      const role = typeof message.role === "string" ? message.role : "?";
      if (typeof message.content === "string") {
        blocks.push({ where: `messages[${String(m)}].content`, role, text: message.content });
      } else if (Array.isArray(message.content)) {
        message.content.forEach((block: unknown, c) => {
          blocks.push({
            where: `messages[${String(m)}].content[${String(c)}]`,
            role,
            text: blockText(block),
          });
        });
      }
    });
  }
  return blocks;
}

/** A text block's text; any other block as canonical JSON (so nothing escapes the manifest). */
function blockText(block: unknown): string {
  const value = block as { type?: unknown; text?: unknown };
  if (value.type === "text" && typeof value.text === "string") return value.text;
  // The cache marker is transport, not content: a block reads the same with or without it.
  const rest: Record<string, unknown> = { ...(block ?? {}) };
  delete rest["cache_control"];
  return JSON.stringify(rest);
}

function normalize(
  text: string,
  ours: readonly OurText[],
  dynamic: Readonly<Record<string, string>>,
  patterns: NonNullable<ManifestInput["patterns"]>,
): { normalized: string; used: string[] } {
  const whole = ours.find((our) => our.text === text);
  if (whole !== undefined) return { normalized: `<<${whole.label}>>`, used: [whole.label] };
  let normalized = text;
  const used: string[] = [];
  // Inside a block only texts long enough not to occur by chance in the runtime's own words
  // (a one-word reply could); the short ones count only as whole blocks, above.
  // Longest first: a file's text may contain a shorter text of ours (e.g. a salutation).
  for (const our of [...ours].sort((a, b) => b.text.length - a.text.length)) {
    if (our.text === "") continue;
    if (our.text.length < MIN_EMBEDDED_LENGTH && our.embedded !== true) continue;
    if (!normalized.includes(our.text)) continue;
    normalized = normalized.split(our.text).join(`<<${our.label}>>`);
    used.push(our.label);
  }
  for (const [marker, value] of Object.entries(dynamic).sort(
    ([, a], [, b]) => b.length - a.length,
  )) {
    if (value !== "") normalized = normalized.split(value).join(`<<${marker}>>`);
  }
  for (const { marker, pattern, ours: isOurs } of patterns) {
    const replaced = normalized.replace(pattern, `<<${marker}>>`);
    if (replaced !== normalized && isOurs === true) used.push(marker);
    normalized = replaced;
  }
  return { normalized, used };
}

function pinOf(text: string): RuntimePin {
  return { sha256: createHash("sha256").update(text).digest("hex"), bytes: byteLength(text) };
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Parts of the runtime's own text that differ by machine or by session (2.1.330). */
export const RUNTIME_DYNAMIC_PATTERNS: NonNullable<ManifestInput["patterns"]> = [
  { marker: "os-version", pattern: /(?<=^ - OS Version: ).*$/mu },
  { marker: "billing-digits", pattern: /(?<=cc_version=\d+\.\d+\.\d+\.)[0-9a-f]+/u },
  // The sandbox's description (a turn that may run commands) lists the CLI's own scratch
  // paths, named by the user's uid, and the file of its `--settings`, named by their digest.
  { marker: "uid", pattern: /(?<=\/(?:claude|claude-host|cc-daemon)-)\d+(?=[/"])/gu },
  { marker: "settings-digest", pattern: /(?<=claude-settings-)[0-9a-f]+(?=\.json)/gu },
];

/**
 * The report of a manifest's unclassified blocks ("" when every block is placed). With
 * `TALKIDE_WIRE_PINS_UPDATE=1` it first pins them in `pinsPath` (hash and length only) and
 * prints what it pinned, for a person to read: re-pin only when all of it is runtime text.
 */
export async function manifestReport(
  manifest: WireManifest,
  pinsPath: string,
  pins: RuntimePins,
  requestLabels: readonly string[],
): Promise<string> {
  const report = formatUnclassified(manifest.unclassified, requestLabels);
  if (process.env["TALKIDE_WIRE_PINS_UPDATE"] === "1" && manifest.unclassified.length > 0) {
    await writePins(pinsPath, {
      ...pins,
      ...pinsFor(
        manifest.unclassified,
        (b) => `${b.role} ${b.where}, request ${String(b.request)}`,
      ),
    });
    console.log(`pinned in ${pinsPath}:\n${report}`);
  }
  return report;
}
