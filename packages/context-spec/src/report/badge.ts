// One small SVG per runtime ("kotlin | 145/145"), for a README or the page itself. Green only
// when every case of the current spec version passed; red on any failure; grey when missing.

import { escapeHtml } from "./escape.ts";
import type { RuntimeColumn } from "./collect.ts";

export type BadgeState = "passing" | "failing" | "missing";

export function badgeState(column: RuntimeColumn, caseCount: number): BadgeState {
  const latest = column.latest;
  if (latest === null) return "missing";
  return latest.failed === 0 && latest.passed === caseCount ? "passing" : "failing";
}

const COLOR: Record<BadgeState, string> = {
  passing: "#2e7d32",
  failing: "#c62828",
  missing: "#757575",
};

export function badgeSvg(column: RuntimeColumn, caseCount: number): string {
  const state = badgeState(column, caseCount);
  const value =
    column.latest === null ? "missing" : `${String(column.latest.passed)}/${String(caseCount)}`;
  const label = column.name;
  // Widths from the character count: DejaVu Sans at 11 px is about 7 px a character.
  const left = 10 + label.length * 7;
  const right = 10 + value.length * 7;
  const text = (x: number, content: string): string =>
    `<text x="${String(x)}" y="14" fill="#fff" font-family="DejaVu Sans,Verdana,sans-serif" font-size="11">${escapeHtml(content)}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(left + right)}" height="20" role="img" aria-label="${escapeHtml(`${label}: ${value}`)}">`,
    `<title>${escapeHtml(`${label}: ${state}`)}</title>`,
    `<rect width="${String(left)}" height="20" fill="#555"/>`,
    `<rect x="${String(left)}" width="${String(right)}" height="20" fill="${COLOR[state]}"/>`,
    text(5, label),
    text(left + 5, value),
    "</svg>",
    "",
  ].join("\n");
}
