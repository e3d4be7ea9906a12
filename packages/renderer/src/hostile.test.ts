import { toNfc } from "@talkide/context-spec/unicode";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { parseRenderState } from "./parse.ts";
import { renderClaudeMd } from "./render.ts";
import { trimUnicode, validStateArb } from "./test-support/arbitraries.ts";
import { FIELDS, hostileArb, withHostile, type Field } from "./test-support/hostile.ts";
import { readLayout } from "./test-support/layout.ts";
import {
  expectedLine,
  expectedOptional,
  expectedQuotedLines,
  expectedSalutation,
} from "./test-support/oracle.ts";

/**
 * Hostile strings (test-support/hostile.ts) in any field are either refused with invalid_field
 * (or the duplicate/unknown code they cause) at the field where they were put, or rendered
 * inside their own line with the layout intact.
 */

const SINGLE_LINE_MAX: Partial<Record<Field, number>> = {
  name: 200,
  url: 2048,
  backendLanguage: 100,
  backendFramework: 100,
  frontendLanguage: 100,
  frontendFramework: 100,
  salutation: 64,
};

/** Conditions under which the spec requires a refusal, restated independently. */
function mustRefuse(field: Field, value: string): boolean {
  if (/\p{Cs}/u.test(value)) return true;
  const nfc = toNfc(value);
  const length = Array.from(nfc).length;
  const max = SINGLE_LINE_MAX[field];
  if (max !== undefined) {
    const line = trimUnicode(nfc);
    if (length > max || /[\p{Cc}\u2028\u2029]/u.test(line)) return true;
    if (field !== "url" && line === "") return true;
    if (field === "salutation" && (!/^\p{L}/u.test(line) || line.includes('"'))) return true;
    if (field.startsWith("backend") || field.startsWith("frontend")) return line === "—";
    return false;
  }
  if (field === "description")
    return length > 2000 || /\p{Cc}/u.test(nfc.replace(/\p{White_Space}+/gu, " "));
  if (field === "teamBriefing") return length > 8000 || /[^\P{Cc}\t\n\r\u0085]/u.test(nfc);
  if (field === "id") return nfc === "";
  if (field === "createdAt") return true; // nothing in the hostile alphabet spells a timestamp
  return false;
}

describe("hostile strings", () => {
  test.prop([validStateArb({ maxMembers: 3 }), fc.constantFrom(...FIELDS), fc.nat(), hostileArb], {
    numRuns: 1000,
  })(
    "never add or remove a heading or leave a quote early: refused at their field, or rendered in place",
    (generated, field, pick, hostile) => {
      const { state, path: fieldPath, index } = withHostile(generated.state, field, pick, hostile);
      const member = generated.state.team[index];
      if (member === undefined) throw new Error("withHostile picks an existing member");

      const result = parseRenderState(state);
      if (!result.ok) {
        const { code, path } = result.error;
        if (code === "duplicate_member") {
          expect(["id", "salutation"]).toContain(field);
          expect(path).toMatch(new RegExp(`^team\\[\\d+\\]\\.${field}$`, "u"));
        } else if (code === "unknown_active_member") {
          expect(["id", "activeMemberId"]).toContain(field);
          expect(path).toBe("activeMemberId");
        } else {
          expect({ code, path }).toEqual({ code: "invalid_field", path: fieldPath });
        }
        return;
      }
      expect(mustRefuse(field, hostile), `${fieldPath} should have been refused`).toBe(false);

      const layout = readLayout(renderClaudeMd(result.state));
      expect(layout.members).toHaveLength(state.team.length);
      switch (field) {
        case "name":
          expect(layout.name).toBe(expectedLine(hostile));
          break;
        case "url":
          expect(layout.url).toBe(expectedOptional(hostile, false));
          break;
        case "description":
          expect(layout.description).toBe(expectedOptional(hostile, true));
          break;
        case "backendLanguage":
        case "frontendLanguage":
          expect(field === "backendLanguage" ? layout.backend : layout.frontend).toMatch(
            new RegExp(`^${escape(expectedLine(hostile))} / `, "u"),
          );
          break;
        case "backendFramework":
        case "frontendFramework":
          expect(field === "backendFramework" ? layout.backend : layout.frontend).toMatch(
            new RegExp(` / ${escape(expectedLine(hostile))}$`, "u"),
          );
          break;
        case "salutation":
          expect(layout.members.map((m) => m.salutation)).toContain(expectedSalutation(hostile));
          break;
        case "teamBriefing":
          expect(layout.members.map((m) => m.quotedLines)).toContainEqual(
            expectedQuotedLines({ ...member, teamBriefing: hostile }),
          );
          break;
        default:
          // id, createdAt and activeMemberId are never rendered; the intact layout is the property.
          break;
      }
    },
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/gu, "\\$&");
}
