/**
 * The tests' own, deliberately simpler reading of "looks like": drop white space, invisible and
 * combining characters, NFKC the whole line, lower-case it. Independent of src/text/neutralize.ts, so a
 * property checked with it is not checked against itself.
 */
const DROPPED = /[\p{White_Space}\p{Cf}\p{M}\p{Default_Ignorable_Code_Point}]/gu;

export function fold(line: string): string {
  return line.replace(DROPPED, "").normalize("NFKC").toLowerCase().replace(DROPPED, "");
}
