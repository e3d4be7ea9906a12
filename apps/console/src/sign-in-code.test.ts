import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { apiTokenFor, isSignInCode, signInUrl } from "./sign-in-code.ts";
import { takeTokenFromFragment } from "./sign-in-link.ts";

const base64url = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/);

describe("sign-in codes", () => {
  it("exchanges a code once and uses an API token as it is", async () => {
    const exchanged: string[] = [];
    const exchange = (code: string) => {
      exchanged.push(code);
      return Promise.resolve("tkbe_issued");
    };
    expect(await apiTokenFor("tksi_abc", exchange)).toBe("tkbe_issued");
    expect(await apiTokenFor("tkbe_own", exchange)).toBe("tkbe_own");
    expect(exchanged).toEqual(["tksi_abc"]);
    expect(isSignInCode("tkbe_x")).toBe(false);
  });

  it("passes the exchange's refusal on (a used or expired link)", async () => {
    const refused = new Error("This sign-in link was already used");
    await expect(apiTokenFor("tksi_x", () => Promise.reject(refused))).rejects.toBe(refused);
  });

  test.prop([base64url, fc.constantFrom("http://127.0.0.1:9090", "http://[::1]:8080")])(
    "the invite's link, opened, gives back exactly its code",
    (secret, origin) => {
      const code = `tksi_${secret}`;
      const href = signInUrl(origin, `/#token=${code}`);
      const url = new URL(href);
      const location = { hash: url.hash, pathname: url.pathname, search: url.search } as Location;
      const history = { state: null, replaceState: () => undefined } as unknown as History;
      expect(takeTokenFromFragment(location, history)).toBe(code);
    },
  );
});
