import { trimWhiteSpace } from "@talkide/text";
import unhomoglyph from "unhomoglyph";

// The service's door policy for text people read (salutations, project fields): what counts
// as invisible, and when two salutations look alike. The render state's own rules (NFC,
// White_Space trimming, the letter-first rule) stay the renderer's; this only refuses more.
//
// The data is Unicode's: Default_Ignorable_Code_Point from the runtime's Unicode database (the
// ECMAScript property escape), and the confusables.txt mapping of UTS #39, version 13.0.0
// (the Unicode version the CLAUDE.md spec binds), as the `unhomoglyph` package ships it.

/** Code points Unicode says a renderer may show as nothing: U+200B, U+2060, U+FEFF, VS1… */
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The text without its default-ignorable code points (white space stays). */
function withoutDefaultIgnorables(text: string): string {
  return text.replace(DEFAULT_IGNORABLE, "");
}

/**
 * Whether nothing would be seen of the text: it holds only default-ignorable code points
 * (U+200B, U+2060, U+FEFF, variation selectors, …) and white space, or nothing. Such a value
 * is blank wherever a blank value is refused or defaulted.
 */
export function isInvisible(text: string): boolean {
  return trimWhiteSpace(withoutDefaultIgnorables(text)) === "";
}

/**
 * `""` for an invisible value, so that the render state's own blank rules apply to it
 * (refused where a value is required, `null` where it is optional); anything else unchanged.
 */
export function blankIfInvisible<T extends string | null | undefined>(value: T): T | "" {
  return typeof value === "string" && isInvisible(value) ? "" : value;
}

/**
 * The confusable skeleton of UTS #39 (section 4): NFD, default-ignorable code points removed,
 * each character mapped by confusables.txt, NFD again. Two strings with the same skeleton
 * are confusable ("Anna", "An\u200bna" and Cyrillic "Аnna" share one; so do "rn" and "m").
 * Not for display: it mixes scripts freely.
 *
 * Case is left as it is: salutations that differ only in case are one by the contract's own
 * rule already (`normalizeSalutationKey`), and folding case into the skeleton would make
 * unrelated names collide (the skeleton maps a capital "I" to "l", so "Ian" would take "Lan").
 */
export function confusableSkeleton(text: string): string {
  return unhomoglyph(withoutDefaultIgnorables(text.normalize("NFD"))).normalize("NFD");
}
