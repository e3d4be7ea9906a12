import { fc, test } from "@fast-check/vitest";
import confusables from "unhomoglyph/data.json" with { type: "json" };
import { describe, expect, it } from "vitest";
import { blankIfInvisible, confusableSkeleton, isInvisible } from "./look-alikes.ts";

/**
 * Default-ignorable code points, written out from Unicode's DerivedCoreProperties.txt
 * (Default_Ignorable_Code_Point) rather than taken from the regex the code uses, so the tests
 * check that regex against Unicode's list.
 */
const DEFAULT_IGNORABLES = [
  "\u00ad", // soft hyphen
  "\u034f", // combining grapheme joiner
  "\u061c", // Arabic letter mark
  "\u115f", // Hangul choseong filler (a letter, and still invisible)
  "\u1160",
  "\u17b4",
  "\u17b5",
  "\u180b", // Mongolian free variation selectors
  "\u180c",
  "\u180d",
  "\u180e",
  "\u200b", // zero width space
  "\u200c",
  "\u200d",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2060", // word joiner
  "\u2061",
  "\u2062",
  "\u2063",
  "\u2064",
  "\u2065",
  "\u206a",
  "\u206f",
  "\u3164", // Hangul filler
  "\ufe00", // variation selectors 1…16
  "\ufe0f",
  "\ufeff", // zero width no-break space (byte order mark)
  "\uffa0", // halfwidth Hangul filler
  "\ufff0",
  "\u{1bca0}", // shorthand format letter overlap
  "\u{1d173}", // musical symbol begin beam
  "\u{e0001}", // language tag
  "\u{e0020}", // tag space
  "\u{e007f}", // cancel tag
  "\u{e0100}", // variation selector 17
  "\u{e01ef}", // variation selector 256
  "\u{e0fff}",
];

/** Unicode's White_Space property, complete. */
const WHITE_SPACE = [
  ...Array.from("\t\n\v\f\r \u0085\u00a0\u1680"),
  ...Array.from("\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"),
  ...Array.from("\u2028\u2029\u202f\u205f\u3000"),
];

const invisible = fc
  .array(fc.constantFrom(...DEFAULT_IGNORABLES, ...WHITE_SPACE), { maxLength: 12 })
  .map((chars) => chars.join(""));

describe("invisible values", () => {
  it.each([
    ["", true],
    ["\u200b", true],
    ["\u2060\ufeff", true],
    ["\ufe0f \u00a0\u3164", true],
    ["\u200bA", false],
    ["\u2800", false], // Braille blank is not default-ignorable: Unicode calls it a symbol
    ["\u0301", false], // a lone combining mark still shows
  ])("%j is invisible: %s", (text, expected) => {
    expect(isInvisible(text)).toBe(expected);
  });

  test.prop([invisible])("only default ignorables and white space: always blank", (text) => {
    expect(isInvisible(text)).toBe(true);
    expect(blankIfInvisible(text)).toBe("");
  });

  test.prop([invisible, fc.string({ minLength: 1, maxLength: 3 }), invisible])(
    "anything else around them: never blank, and left as it is",
    (before, middle, after) => {
      fc.pre(!isInvisible(middle));
      const text = before + middle + after;
      expect(isInvisible(text)).toBe(false);
      expect(blankIfInvisible(text)).toBe(text);
    },
  );

  it("leaves null and undefined as they are", () => {
    expect(blankIfInvisible(null)).toBeNull();
    expect(blankIfInvisible(undefined)).toBeUndefined();
  });
});

/** confusables.txt inverted: every source character whose prototype is this one character. */
const SOURCES_OF = new Map<string, string[]>();
for (const [source, prototype] of Object.entries(confusables as Record<string, string>)) {
  // A source with a canonical decomposition is mapped after NFD, as UTS #39 says, so it
  // is not a plain substitute for its prototype.
  if (Array.from(prototype).length !== 1 || source.normalize("NFD") !== source) continue;
  SOURCES_OF.set(prototype, [...(SOURCES_OF.get(prototype) ?? []), source]);
}
/** Characters that look like `char`: itself, or any source sharing its prototype. */
const lookAlikesOf = (char: string): string[] => {
  const prototype = (confusables as Record<string, string>)[char] ?? char;
  return [prototype, ...(SOURCES_OF.get(prototype) ?? [])];
};

const latinName = fc
  .array(fc.constantFrom(...Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")), {
    minLength: 1,
    maxLength: 12,
  })
  .map((chars) => chars.join(""));

/** A name and a variant of it: letters swapped for look-alikes, invisible characters added. */
const nameAndVariant = latinName.chain((name) =>
  fc
    .tuple(
      ...Array.from(name).map((char) =>
        fc.tuple(
          fc.constantFrom(...lookAlikesOf(char)),
          fc.array(fc.constantFrom(...DEFAULT_IGNORABLES), { maxLength: 2 }),
        ),
      ),
    )
    .map((parts) => ({
      name,
      variant: parts.map(([char, ignorables]) => char + ignorables.join("")).join(""),
    })),
);

describe("look-alike salutations (UTS #39 skeleton)", () => {
  it.each([
    ["Anna", "An\u200bna"], // zero width space
    ["Anna", "\u0410nna"], // Cyrillic А
    ["Anna", "Ann\u0430"], // Cyrillic а
    ["Anna", "\u0391nna"], // Greek Α
    ["Anna", "Anna\ufe0f"], // variation selector
    ["Anna", "An\u034fna"], // combining grapheme joiner
    ["ANNA", "\u0391\u039d\u039d\u0391"], // Greek capitals
    ["\u00c1nna", "A\u0301nna"], // precomposed and decomposed accent
    ["Kim", "Kirn"], // rn and m
    ["Ola", "0la"], // 0 and O
    ["Ali", "A1i"], // 1 and l
    ["Ali", "AIi"], // capital I and l
    ["Jiří", "Jir\u030ci\u0301"],
  ])("%j and %j look alike", (a, b) => {
    expect(confusableSkeleton(a)).toBe(confusableSkeleton(b));
  });

  it.each([
    ["Anna", "Ánna"], // a visible accent
    ["Anna", "Hanna"],
    ["Jiří", "Jiri"],
    ["Eva", "Ewa"],
    ["Ian", "Lan"],
    // Case is the contract's own rule (normalizeSalutationKey), not the skeleton's.
    ["Anna", "ANNA"],
  ])("%j and %j do not", (a, b) => {
    expect(confusableSkeleton(a)).not.toBe(confusableSkeleton(b));
  });

  it("is the skeleton of UTS #39: NFD, ignorables removed, confusables mapped, NFD", () => {
    expect(confusableSkeleton("m")).toBe("rn");
    expect(confusableSkeleton("A\u200b\u0410")).toBe("AA");
    expect(confusableSkeleton("\u00c1")).toBe("A\u0301");
  });

  test.prop([nameAndVariant])("a look-alike variant of a name always shares its key", (pair) => {
    expect(confusableSkeleton(pair.variant)).toBe(confusableSkeleton(pair.name));
  });

  test.prop([fc.string({ unit: "grapheme", maxLength: 16 })])(
    "the key ignores NFC and NFD: the stored (NFC) form has the submitted form's key",
    (text) => {
      expect(confusableSkeleton(text.normalize("NFC"))).toBe(confusableSkeleton(text));
      expect(confusableSkeleton(text.normalize("NFD"))).toBe(confusableSkeleton(text));
    },
  );
});
