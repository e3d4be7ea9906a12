// The template notation of the spec pages (spec/README.md, "Template notation"): text lines,
// {{dotted.path}} placeholders with an optional `| default: "…"`, one level or more of
// {{#each collection-item ordered by key asc, then key asc}} … {{/each}} blocks, and the
// line-prefix rule for values that span several lines.

import { compareInstants, isInstant } from "./instant.ts";
import { compareCodePoints } from "./unicode.ts";

export class TemplateError extends Error {
  override readonly name = "TemplateError";
}

type Segment =
  | { readonly kind: "text"; readonly text: string }
  | {
      readonly kind: "placeholder";
      readonly path: readonly string[];
      readonly fallback: string | null;
    };

interface SortKey {
  readonly field: string;
  readonly direction: "asc" | "desc";
}

type TemplateLine =
  | { readonly kind: "line"; readonly segments: readonly Segment[]; readonly lineNumber: number }
  | {
      readonly kind: "each";
      readonly collection: string;
      readonly item: string;
      readonly order: readonly SortKey[];
      readonly body: readonly TemplateLine[];
      readonly lineNumber: number;
    };

export interface Template {
  readonly lines: readonly TemplateLine[];
}

const EACH_OPEN =
  /^\{\{#each ([A-Za-z][A-Za-z0-9]*)-([A-Za-z][A-Za-z0-9]*)(?: ordered by (.+))?\}\}$/;
const EACH_CLOSE = /^\{\{\/each\}\}$/;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const PLACEHOLDER_BODY =
  /^\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:\|\s*default:\s*("(?:[^"\\]|\\.)*"))?\s*$/;
const SORT_KEY = /^([A-Za-z_][A-Za-z0-9_]*) (asc|desc)$/;

export function parseTemplate(text: string): Template {
  if (!text.endsWith("\n")) throw new TemplateError("A template must end with a line feed.");
  const stack: {
    lines: TemplateLine[];
    open: Omit<Extract<TemplateLine, { kind: "each" }>, "body"> | null;
  }[] = [{ lines: [], open: null }];
  text
    .slice(0, -1)
    .split("\n")
    .forEach((source, index) => {
      const lineNumber = index + 1;
      const top = stack[stack.length - 1];
      if (top === undefined) throw new TemplateError("Template parser lost its block stack.");
      const opening = EACH_OPEN.exec(source);
      if (opening !== null) {
        const [, collection = "", item = "", order] = opening;
        stack.push({
          lines: [],
          open: {
            kind: "each",
            collection,
            item,
            order: parseOrder(order, lineNumber),
            lineNumber,
          },
        });
        return;
      }
      if (EACH_CLOSE.test(source)) {
        if (top.open === null)
          throw new TemplateError(`Line ${String(lineNumber)}: {{/each}} without {{#each}}.`);
        stack.pop();
        stack[stack.length - 1]?.lines.push({ ...top.open, body: top.lines });
        return;
      }
      top.lines.push({ kind: "line", segments: parseSegments(source, lineNumber), lineNumber });
    });
  const root = stack[0];
  if (stack.length !== 1 || root === undefined) {
    throw new TemplateError(
      `The {{#each}} opened on line ${String(stack[1]?.open?.lineNumber)} is never closed.`,
    );
  }
  return { lines: root.lines };
}

function parseOrder(clause: string | undefined, lineNumber: number): SortKey[] {
  if (clause === undefined) return [];
  return clause.split(/,\s*then\s+/).map((part) => {
    const key = SORT_KEY.exec(part.trim());
    if (key === null) {
      throw new TemplateError(
        `Line ${String(lineNumber)}: cannot read the sort key "${part}"; write "<field> asc".`,
      );
    }
    return { field: key[1] ?? "", direction: key[2] === "desc" ? "desc" : "asc" };
  });
}

function parseSegments(source: string, lineNumber: number): Segment[] {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    pushText(segments, source.slice(last, match.index), lineNumber);
    const body = PLACEHOLDER_BODY.exec(match[1] ?? "");
    if (body === null) {
      throw new TemplateError(
        `Line ${String(lineNumber)}: cannot read the placeholder ${match[0]}.`,
      );
    }
    const fallback = body[2] === undefined ? null : (JSON.parse(body[2]) as string);
    segments.push({ kind: "placeholder", path: (body[1] ?? "").split("."), fallback });
    last = match.index + match[0].length;
  }
  pushText(segments, source.slice(last), lineNumber);
  return segments;
}

function pushText(segments: Segment[], text: string, lineNumber: number): void {
  if (text.includes("{{"))
    throw new TemplateError(`Line ${String(lineNumber)}: "{{" that opens no placeholder.`);
  if (text !== "") segments.push({ kind: "text", text });
}

export function renderTemplate(
  template: Template,
  context: Readonly<Record<string, unknown>>,
): string {
  const out: string[] = [];
  renderLines(template.lines, context, out);
  return out.map((line) => `${line}\n`).join("");
}

function renderLines(
  lines: readonly TemplateLine[],
  scope: Readonly<Record<string, unknown>>,
  out: string[],
): void {
  for (const line of lines) {
    if (line.kind === "line") {
      out.push(renderLine(line.segments, scope, line.lineNumber));
      continue;
    }
    const collection = scope[line.collection];
    if (!Array.isArray(collection)) {
      throw new TemplateError(
        `Line ${String(line.lineNumber)}: "${line.collection}" is not a list in the context.`,
      );
    }
    const ordered = [...(collection as unknown[])].sort((a, b) =>
      compareByKeys(a, b, line.order, line.lineNumber),
    );
    for (const element of ordered) renderLines(line.body, { ...scope, [line.item]: element }, out);
  }
}

/** Renders one template line; a multi-line value repeats the text before it (the prefix). */
function renderLine(
  segments: readonly Segment[],
  scope: Readonly<Record<string, unknown>>,
  lineNumber: number,
): string {
  let text = "";
  let spansLines = false;
  for (const segment of segments) {
    if (segment.kind === "text") {
      text += segment.text;
      continue;
    }
    const value = resolve(segment, scope, lineNumber);
    if (!value.includes("\n")) {
      text += value;
      continue;
    }
    if (spansLines)
      throw new TemplateError(`Line ${String(lineNumber)}: two multi-line values on one line.`);
    spansLines = true;
    const prefix = text;
    const emptyLinePrefix = prefix.replace(/ +$/, "");
    text = value
      .split("\n")
      .map((valueLine) => (valueLine === "" ? emptyLinePrefix : prefix + valueLine))
      .join("\n");
  }
  return text;
}

function resolve(
  segment: Extract<Segment, { kind: "placeholder" }>,
  scope: Readonly<Record<string, unknown>>,
  lineNumber: number,
): string {
  const value = lookup(scope, segment.path);
  if (value === undefined || value === null || value === "") {
    if (segment.fallback !== null) return segment.fallback;
    if (value === "") return "";
    throw new TemplateError(
      `Line ${String(lineNumber)}: {{${segment.path.join(".")}}} has no value and no default.`,
    );
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  throw new TemplateError(
    `Line ${String(lineNumber)}: {{${segment.path.join(".")}}} is not text or a number.`,
  );
}

function lookup(scope: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let current: unknown = scope;
  for (const key of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function compareByKeys(
  a: unknown,
  b: unknown,
  keys: readonly SortKey[],
  lineNumber: number,
): number {
  for (const key of keys) {
    const order = compareValues(lookup({ a }, ["a", key.field]), lookup({ b }, ["b", key.field]));
    if (order === null) {
      throw new TemplateError(
        `Line ${String(lineNumber)}: cannot order by "${key.field}"; its values do not compare.`,
      );
    }
    if (order !== 0) return key.direction === "asc" ? order : -order;
  }
  return 0;
}

/** Instants chronologically, text by code point, numbers numerically; null when unlike. */
function compareValues(a: unknown, b: unknown): number | null {
  if (isInstant(a) && isInstant(b)) return compareInstants(a, b);
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  if (typeof a === "number" && typeof b === "number") return Math.sign(a - b);
  return null;
}
