import { ApiError } from "./api.ts";

export interface FormErrors {
  /** For the whole form: the API's `detail` and `code`, for people and for bug reports. */
  readonly summary: string | null;
  /** Per field name, as the API names fields. */
  readonly fields: Readonly<Record<string, string>>;
}

export const NO_ERRORS: FormErrors = { summary: null, fields: {} };

/** Splits a failed request's error into the form's summary line and its per-field messages. */
export function formErrorsOf(error: unknown): FormErrors {
  if (error instanceof ApiError) {
    return { summary: `${error.message} (${error.code})`, fields: error.fields };
  }
  return {
    summary: `The request failed: ${error instanceof Error ? error.message : String(error)}`,
    fields: {},
  };
}

/** The form's values as an API body: empty optional fields are left out (API defaults). */
export function nonEmpty(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ""));
}
