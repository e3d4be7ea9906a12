/**
 * A failed `ticlawk` command. It is printed as one JSON object on standard error,
 * `{"error":{"code":"...","message":"...","path":"..."}}` (the hub's own error shape), and the
 * process exits non-zero: 2 for a command line that cannot be run as given, 1 for everything
 * else (the hub refused, the hub is unreachable, a file is missing).
 */
export class TiclawkFailure extends Error {
  readonly code: string;
  readonly path: string | undefined;
  readonly exitCode: 1 | 2;
  constructor(
    code: string,
    message: string,
    options: { readonly path?: string; readonly exitCode?: 1 | 2 } = {},
  ) {
    super(message);
    this.name = "TiclawkFailure";
    this.code = code;
    this.path = options.path;
    this.exitCode = options.exitCode ?? 1;
  }

  toJson(): string {
    return JSON.stringify({
      error: {
        code: this.code,
        message: this.message,
        ...(this.path === undefined ? {} : { path: this.path }),
      },
    });
  }
}

export const usageFailure = (code: string, message: string, path?: string): TiclawkFailure =>
  new TiclawkFailure(code, message, { exitCode: 2, ...(path === undefined ? {} : { path }) });
