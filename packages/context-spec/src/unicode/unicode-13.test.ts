import { fc, test } from "@fast-check/vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../cases/package-root.ts";
import { unassignedRangesFromUcd } from "./test-support/unassigned-source.ts";
import {
  isUnassignedInUnicode13,
  startsWithUnicode13Letter,
  toLowerCaseDefault,
  toNfc,
} from "./unicode-13.ts";
import {
  UNASSIGNED_DATA_FILE,
  formatUnassignedData,
  readUnassignedData,
} from "./unicode-13-data.ts";

const codePoints = (text: string): string[] =>
  Array.from(text, (char) => (char.codePointAt(0) ?? 0).toString(16));

describe("the Unicode 13.0.0 data file", () => {
  it("is exactly the Unassigned ranges of the Unicode 13.0.0 database (run unicode:write)", () => {
    const onDisk = readFileSync(join(PACKAGE_ROOT, UNASSIGNED_DATA_FILE), "utf8");
    expect(onDisk).toBe(formatUnassignedData(unassignedRangesFromUcd()));
    expect(readUnassignedData()).toEqual(unassignedRangesFromUcd());
  });

  it("names code points Unicode 14 and later assigned, and not those 13.0.0 has", () => {
    expect(isUnassignedInUnicode13(0x0870)).toBe(true); // ARABIC LETTER ALEF WITH ATTACHED FATHA, 14.0
    expect(isUnassignedInUnicode13(0x1ac1)).toBe(true); // COMBINING LEFT PARENTHESIS ABOVE LEFT, 14.0
    expect(isUnassignedInUnicode13(0x2c2f)).toBe(true); // GLAGOLITIC CAPITAL LETTER CAUDATE CHRIVI, 14.0
    expect(isUnassignedInUnicode13(0x1fae0)).toBe(true); // MELTING FACE, 14.0
    expect(isUnassignedInUnicode13(0x0041)).toBe(false);
    expect(isUnassignedInUnicode13(0x08be)).toBe(false); // assigned in 13.0
    expect(isUnassignedInUnicode13(0x1fad6)).toBe(false); // TEAPOT, 13.0
    expect(isUnassignedInUnicode13(0x10ffff)).toBe(true); // a noncharacter is Cn too
  });
});

describe("rules bound to Unicode 13.0.0 on a newer runtime", () => {
  it("keeps a code point unassigned in 13.0.0 out of canonical reordering and composition", () => {
    // Node's own NFC (newer Unicode) moves U+0323 before U+1AC1 and composes it with "a".
    expect(codePoints("a\u1ac1\u0323".normalize("NFC"))).toEqual(["1ea1", "1ac1"]);
    expect(codePoints(toNfc("a\u1ac1\u0323"))).toEqual(["61", "1ac1", "323"]);
    expect(toNfc("A\u0301\u1ac1e\u0301")).toBe("\u00c1\u1ac1\u00e9");
  });

  it("gives a code point unassigned in 13.0.0 no lower-case mapping", () => {
    expect("\u2c2f".toLowerCase()).toBe("\u2c5f");
    expect(toLowerCaseDefault("A\u2c2fB")).toBe("a\u2c2fb");
  });

  it("does not call a code point unassigned in 13.0.0 a letter", () => {
    expect(startsWithUnicode13Letter("\u0870x")).toBe(false);
    expect(startsWithUnicode13Letter("x\u0870")).toBe(true);
    expect(startsWithUnicode13Letter("\u00c1")).toBe(true);
    expect(startsWithUnicode13Letter("")).toBe(false);
  });

  test.prop([fc.string({ unit: "grapheme" })])(
    "agrees with the runtime on text of older characters",
    (text) => {
      fc.pre(!Array.from(text).some((char) => isUnassignedInUnicode13(char.codePointAt(0) ?? 0)));
      expect(toNfc(text)).toBe(text.normalize("NFC"));
      expect(toLowerCaseDefault(text)).toBe(text.toLowerCase());
    },
  );

  test.prop([fc.string({ unit: "binary" })])(
    "is idempotent and keeps unassigned code points",
    (text) => {
      const normalized = toNfc(text.replace(/\p{Cs}/gu, ""));
      expect(toNfc(normalized)).toBe(normalized);
    },
  );
});
