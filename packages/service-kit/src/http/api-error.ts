/**
 * An API refusal with a stable code. Responses carry `{ "error": { code, message, path? } }`;
 * clients branch on `code`, people read `message`.
 */
export class ApiError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly path: string | undefined;
  constructor(httpStatus: number, code: string, message: string, path?: string) {
    super(message);
    this.name = "ApiError";
    this.httpStatus = httpStatus;
    this.code = code;
    this.path = path;
  }
}

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly path?: string };
}

export function errorBody(code: string, message: string, path?: string): ErrorBody {
  return { error: { code, message, ...(path === undefined ? {} : { path }) } };
}
