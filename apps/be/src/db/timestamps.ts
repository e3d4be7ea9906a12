/**
 * PostgreSQL's text form of a timestamptz in UTC with DateStyle ISO
 * (`2026-05-02 14:32:11.123456+00`) → RFC 3339 (`2026-05-02T14:32:11.123456Z`), the
 * fraction kept exactly as stored. Both drivers are set up to return that text form.
 */
export function toRfc3339(pgText: string): string {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)\+00$/.exec(pgText);
  if (!match) {
    throw new Error(
      "Unexpected timestamp format from the database; the connection must use TimeZone=UTC and DateStyle=ISO.",
    );
  }
  return `${match[1] ?? ""}T${match[2] ?? ""}Z`;
}

export function toRfc3339OrNull(pgText: string | null): string | null {
  return pgText === null ? null : toRfc3339(pgText);
}
