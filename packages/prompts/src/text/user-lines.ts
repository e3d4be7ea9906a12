/**
 * Structure by construction (contract 4.2, v2): every line of user text in a wake prompt
 * starts with `> `, and no line the prompt writes itself ever starts with `>`. Whoever reads
 * only the lines without the prefix gets exactly the envelope, the blocks and the instructions
 * the daemon put in, whatever the user wrote: a line of user text cannot become a line of the
 * prompt's own, however it imitates one, because the prefix is added in front of everything
 * the user typed (invisible characters, look-alikes and fillers included).
 */

/** What every line of user text starts with; an empty line gets it without the space. */
export const USER_LINE_PREFIX = "> ";
/** An empty line of user text: the prefix without its space. */
const EMPTY_USER_LINE = ">";

/**
 * The lines of user text (already normalized, `\n` between lines), each behind the prefix,
 * the way CLAUDE.md shows briefings: `> line`, and `>` alone for an empty line.
 */
export function asUserLines(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? EMPTY_USER_LINE : `${USER_LINE_PREFIX}${line}`))
    .join("\n");
}
