// Where the data file comes from: the Unicode Character Database of 13.0.0 as packaged by
// the node-unicode project. A development dependency only: the published package reads
// its own data file, and a test proves the two agree.

import unassigned from "@unicode/unicode-13.0.0/General_Category/Unassigned/ranges.mjs";
import type { CodePointRange } from "../unicode-13-data.ts";

/** The package's own declaration names a type its module does not export; this is its shape. */
interface UcdRange {
  readonly begin: number;
  /** One past the last code point. */
  readonly end: number;
}

/** The package's ranges end one past their last code point; ours are inclusive. */
export function unassignedRangesFromUcd(): CodePointRange[] {
  const ranges = unassigned as unknown as readonly UcdRange[];
  return ranges.map((range) => ({ first: range.begin, last: range.end - 1 }));
}
