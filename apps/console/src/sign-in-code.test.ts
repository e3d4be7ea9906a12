import { describe, expect, it } from "vitest";
import { signInCredentialOf } from "./sign-in-code.ts";

describe("signInCredentialOf", () => {
  it("sends a sign-in code as a code and an API token as a token", () => {
    expect(signInCredentialOf(" tksi_abc ")).toEqual({ code: "tksi_abc" });
    expect(signInCredentialOf("tkbe_own")).toEqual({ token: "tkbe_own" });
  });

  it("takes nothing else (an invite's code, a password, an empty field)", () => {
    expect(signInCredentialOf("tkiv_seat")).toBeNull();
    expect(signInCredentialOf("hunter2")).toBeNull();
    expect(signInCredentialOf("   ")).toBeNull();
  });
});
