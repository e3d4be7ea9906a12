import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { toRfc3339 } from "./timestamps.ts";

/** PostgreSQL's own text form: trailing zeros of the fraction dropped, no fraction at all for 0. */
function pgText(micros: number): string {
  const date = new Date(Math.floor(micros / 1000));
  const fraction = String(micros % 1_000_000)
    .padStart(6, "0")
    .replace(/0+$/, "");
  const base = date.toISOString().slice(0, 19).replace("T", " ");
  return `${base}${fraction === "" ? "" : `.${fraction}`}+00`;
}

describe("toRfc3339", () => {
  it.each([
    ["2026-05-02 14:32:11.123456+00", "2026-05-02T14:32:11.123456Z"],
    ["2026-05-02 14:32:11.26+00", "2026-05-02T14:32:11.260000Z"],
    ["2026-05-02 14:32:11+00", "2026-05-02T14:32:11.000000Z"],
  ])("%s → %s", (input, expected) => {
    expect(toRfc3339(input)).toBe(expected);
  });

  it("refuses a form the connection settings exclude", () => {
    expect(() => toRfc3339("2026-05-02 14:32:11+02")).toThrow(/TimeZone=UTC/);
  });

  const instant = fc.integer({ min: 0, max: 4_102_444_800_000_000 });
  test.prop([instant, instant])("is fixed width, and text order is time order", (a, b) => {
    const [x, y] = [toRfc3339(pgText(a)), toRfc3339(pgText(b))];
    expect(x).toHaveLength("2026-05-02T14:32:11.123456Z".length);
    expect(x < y ? -1 : x > y ? 1 : 0).toBe(Math.sign(a - b));
  });
});
