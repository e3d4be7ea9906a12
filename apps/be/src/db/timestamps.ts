/**
 * PostgreSQL's text form of a timestamptz in UTC with DateStyle ISO
 * (`2026-05-02 14:32:11.12345+00`) → RFC 3339 with exactly six fraction digits
 * (`2026-05-02T14:32:11.123450Z`). PostgreSQL stores microseconds but drops trailing zeros
 * from the text; padding them back makes every timestamp the API returns the same width,
 * so sorting them as text sorts them in time. Both drivers are set up to return that form.
 */
export function toRfc3339(pgText: string): string {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/.exec(pgText);
  if (!match) {
    throw new Error(
      "Unexpected timestamp format from the database; the connection must use TimeZone=UTC and DateStyle=ISO.",
    );
  }
  const fraction = (match[3] ?? "").padEnd(6, "0");
  return `${match[1] ?? ""}T${match[2] ?? ""}.${fraction}Z`;
}

export function toRfc3339OrNull(pgText: string | null): string | null {
  return pgText === null ? null : toRfc3339(pgText);
}
