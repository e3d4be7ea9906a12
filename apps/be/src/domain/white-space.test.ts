import { describe, expect, it } from "vitest";
import { normalizeSalutationKey } from "./members.ts";
import { validateNewUser } from "./users.ts";

// The contract's white space is the Unicode White_Space property: U+FEFF is not white space
// (String#trim strips it) and U+0085 is (String#trim keeps it). User fields follow the contract.
describe("user fields are trimmed as the contract trims", () => {
  it("keeps a U+FEFF at the edge of a display name and trims U+0085 and U+00A0", () => {
    const user = validateNewUser({
      email: "anna@example.com",
      displayName: "\u00a0\ufeffAnna\ufeff\u0085",
      phone: "\u3000+420 123 456\u0085",
    });
    expect(user.displayName).toBe("\ufeffAnna\ufeff");
    expect(user.phone).toBe("+420 123 456");
  });

  it("calls a display name of white space or invisible characters (U+FEFF, U+200B) blank", () => {
    for (const displayName of ["\u0085\u2028", "\ufeff", "\u200b \u2060"]) {
      expect(() => validateNewUser({ email: "a@example.com", displayName })).toThrow(
        "The user's displayName must not be blank.",
      );
    }
    expect(validateNewUser({ email: "a@example.com", displayName: "\ufeffA" }).displayName).toBe(
      "\ufeffA",
    );
  });

  it("tells salutations apart by a U+FEFF at the edge, as the renderer does", () => {
    expect(normalizeSalutationKey("Anna\ufeff")).not.toBe(normalizeSalutationKey("Anna"));
    expect(normalizeSalutationKey("\u0085ANNA\u00a0")).toBe(normalizeSalutationKey("anna"));
  });
});
