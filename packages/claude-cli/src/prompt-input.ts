/**
 * Whether Claude Code would find no input in this prompt: it refuses a print-mode turn
 * without input. Claude Code is a JavaScript program and decides this with `String#trim`,
 * which (unlike the contract's white space, `@talkide/text`) also strips U+FEFF. So this check
 * uses `String#trim` on purpose: it mirrors the CLI, not the contract. The backend refuses a
 * message that is blank by either rule, so a message it accepts never fails here.
 */
export function hasNoInputForClaude(prompt: string): boolean {
  // eslint-disable-next-line no-restricted-syntax -- Claude Code's own rule, see above.
  return prompt.trim() === "";
}
