import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { ApiError, fieldErrorsOf } from "./api.ts";
import { formErrorsOf } from "./form-errors.ts";

// The API's problem+json answers, stubbed as the backend sends them.
const invalidUrl = {
  code: "invalid_field",
  detail: "url: must be an absolute http:// or https:// URL without white space, or null.",
  field: "url",
  rule: "invalid_field",
};
const invalidBody = {
  code: "invalid_body",
  detail: "The request body does not have the expected shape; see `errors` for each field.",
  errors: [
    { path: "member.salutation", message: "Invalid input: expected string, received undefined" },
  ],
};
const apiError = (status: number, problem: Record<string, unknown>): ApiError =>
  new ApiError(status, String(problem.code), String(problem.detail), fieldErrorsOf(problem));

describe("formErrorsOf", () => {
  it("puts a field's error beside the field only, in words for people", () => {
    const errors = formErrorsOf(apiError(400, invalidUrl), ["name", "url"]);
    expect(errors).toEqual({
      summary: null,
      code: null,
      fields: {
        url: "Enter a full web address starting with http:// or https://, or leave it empty.",
      },
    });
  });

  it("keeps a message it has no advice for, without the field's name, as a sentence", () => {
    const tooLong = apiError(400, {
      code: "invalid_field",
      detail: "name: is longer than 200 characters.",
      field: "name",
    });
    expect(formErrorsOf(tooLong, ["name"]).fields).toEqual({ name: "Use at most 200 characters." });
    const other = apiError(400, { code: "invalid_field", detail: "role: is odd", field: "role" });
    expect(formErrorsOf(other, ["role"]).fields).toEqual({ role: "Is odd." });
  });

  it("maps a nested body path to the form's field", () => {
    const errors = formErrorsOf(apiError(400, invalidBody), ["name", "salutation"]);
    expect(errors.fields).toEqual({ salutation: "Fill this in." });
    expect(errors.summary).toBeNull();
  });

  it("speaks for the whole form only when no field matches, the code kept apart", () => {
    const conflict = apiError(409, {
      code: "already_member",
      detail: "This person is already a member of the project.",
    });
    expect(formErrorsOf(conflict, ["email"])).toEqual({
      summary: "This person is already a member of the project.",
      code: "already_member",
      fields: {},
    });
    const elsewhere = formErrorsOf(apiError(400, invalidUrl), ["name"]);
    expect(elsewhere.summary).toBe(
      "url: Enter a full web address starting with http:// or https://, or leave it empty.",
    );
    expect(elsewhere.fields).toEqual({});
  });

  it("tells what to do when the service cannot be reached", () => {
    const errors = formErrorsOf(new TypeError("Failed to fetch"), ["name"]);
    expect(errors.summary).toBe(
      "The request failed: Failed to fetch. Check the connection to the service and try again.",
    );
  });

  const names = fc.constantFrom("name", "url", "salutation", "teamBriefing", "email", "role");
  test.prop([
    fc.uniqueArray(fc.record({ name: names, message: fc.string({ minLength: 1 }) }), {
      selector: (e) => e.name,
    }),
    fc.subarray(["name", "url", "salutation", "teamBriefing", "email", "role"]),
  ])(
    "shows every field message exactly once: under its field or in the summary",
    (entries, onForm) => {
      const problem = {
        code: "invalid_body",
        detail: "The request body does not have the expected shape.",
        errors: entries.map((e) => ({ path: `member.${e.name}`, message: e.message })),
      };
      const error = apiError(400, problem);
      const errors = formErrorsOf(error, onForm);
      for (const [field, message] of Object.entries(error.fields)) {
        const underField = errors.fields[field] === message;
        const inSummary = errors.summary?.includes(`${field}: ${message}`) ?? false;
        expect(underField !== inSummary, field).toBe(true);
        expect(underField).toBe(onForm.includes(field));
      }
      // The form-level line appears only for what has no field to stand beside.
      if (entries.length > 0 && entries.every((e) => onForm.includes(e.name))) {
        expect(errors.summary).toBeNull();
      }
    },
  );
});
