/**
 * Every failure the API reports has a stable `code` (clients branch on it) and a status.
 * The detail explains what to do; it never repeats a submitted value, which may be
 * personal data. The HTTP layer turns an AppError into an application/problem+json body.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(
    code: string,
    status: number,
    title: string,
    detail: string,
    extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.status = status;
    this.title = title;
    this.extensions = extensions;
  }
}

export const notFound = (code: string, what: string): AppError =>
  new AppError(
    code,
    404,
    `${what} not found`,
    `No ${what.toLowerCase()} with this id exists among the projects you are a member of.`,
  );
