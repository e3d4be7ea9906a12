// FROZEN for migration 0009 (see ./README.md): a copy, as it was when 0009 shipped, of
// `confusableSkeleton` (apps/be/src/domain/look-alikes.ts) and of the npm package it used,
// `unhomoglyph` 1.0.6 (MIT, © Vitaly Puzrin; its index.js, and its data.json verbatim as
// ./0009-confusables-13.0.0.json, a final newline added: the confusables.txt mapping of
// UTS #39, version 13.0.0).
// Never edit it; a later migration brings its own copy.

import confusables from "./0009-confusables-13.0.0.json" with { type: "json" };

const DATA: Readonly<Record<string, string>> = confusables;

/** Code points Unicode says a renderer may show as nothing: U+200B, U+2060, U+FEFF, VS1… */
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

function escapeRegexp(str: string): string {
  return str.replace(/([.?*+^$[\]\\(){}|-])/g, "\\$1");
}

const REPLACE_RE = RegExp(Object.keys(DATA).map(escapeRegexp).join("|"), "g");

/** `unhomoglyph(str)`: every character that confusables.txt maps, replaced by its mapping. */
function unhomoglyph(str: string): string {
  return str.replace(REPLACE_RE, (match) => DATA[match] ?? match);
}

/**
 * The confusable skeleton of UTS #39 (section 4): NFD, default-ignorable code points removed,
 * each character mapped by confusables.txt, NFD again. Case is left as it is.
 */
export function confusableSkeleton(text: string): string {
  return unhomoglyph(text.normalize("NFD").replace(DEFAULT_IGNORABLE, "")).normalize("NFD");
}
