import { ApiError } from "./api.ts";

export interface FormErrors {
  /**
   * For the whole form, in words for people: only what has no field on this form to stand
   * beside (each error is shown once).
   */
  readonly summary: string | null;
  /** The API's stable `code`, shown small beside the summary (for bug reports), or null. */
  readonly code: string | null;
  /** Per field name, as the API names fields: shown under that field. */
  readonly fields: Readonly<Record<string, string>>;
}

export const NO_ERRORS: FormErrors = { summary: null, code: null, fields: {} };

/**
 * Splits a failed request's error into messages under the fields of `formFields` and one line
 * for the whole form holding only the rest. Without `formFields` every field the API names is
 * taken to be on the form.
 */
export function formErrorsOf(error: unknown, formFields?: readonly string[]): FormErrors {
  if (!(error instanceof ApiError)) {
    return {
      summary: `The request failed: ${error instanceof Error ? error.message : String(error)}. Check the connection to the service and try again.`,
      code: null,
      fields: {},
    };
  }
  const named = Object.entries(error.fields);
  const onForm = (field: string): boolean => formFields?.includes(field) ?? true;
  const placed = named.filter(([field]) => onForm(field));
  const elsewhere = named.filter(([field]) => !onForm(field));
  // A message with no field to stand beside keeps the field's name; with no field messages
  // at all, the API's detail speaks for the whole form.
  const summary =
    elsewhere.length > 0
      ? elsewhere.map(([field, message]) => `${field}: ${message}`).join(" ")
      : placed.length > 0
        ? null
        : error.message;
  return {
    summary,
    code: summary === null ? null : error.code,
    fields: Object.fromEntries(placed),
  };
}

/** The form's values as an API body: empty optional fields are left out (API defaults). */
export function nonEmpty(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ""));
}
