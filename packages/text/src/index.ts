export {
  collapseWhiteSpace,
  hasWhiteSpace,
  isBlank,
  stripTrailingWhiteSpace,
  trimWhiteSpace,
} from "./white-space.ts";
export {
  hasControlCharacter,
  hasControlOrLineSeparator,
  hasControlOtherThanTabOrLineFeed,
  hasUnpairedSurrogate,
} from "./control.ts";
export { unifyLineBreaks, type LineBreakOptions } from "./line-breaks.ts";
export {
  REPLACEMENT_CHARACTER,
  toMultiLineText,
  toSingleLineText,
  toWellFormedNfc,
} from "./user-text.ts";
export { codePointLength, compareCodePoints } from "./code-points.ts";
export {
  compareInstants,
  isRfc3339Timestamp,
  parseInstant,
  type Instant,
  type Rfc3339Options,
} from "./rfc3339.ts";
export {
  escapeLineStartUserText,
  escapeUserText,
  escapeWithBackslashes,
  LINE_START_ESCAPED,
  USER_TEXT_ESCAPED,
} from "./escape.ts";
