import { describe, expect, it } from "vitest";
import { takeTokenFromFragment } from "./sign-in-link.ts";

/** The parts of window.location and window.history the link reader uses, recorded. */
function addressBar(href: string): { location: Location; history: History; replaced: string[] } {
  const url = new URL(href);
  const replaced: string[] = [];
  const location = { hash: url.hash, pathname: url.pathname, search: url.search } as Location;
  const history = {
    state: null,
    replaceState: (_state: unknown, _unused: string, to: string) => replaced.push(to),
  } as unknown as History;
  return { location, history, replaced };
}

describe("takeTokenFromFragment", () => {
  it("takes the token and removes it from the address bar at once", () => {
    const bar = addressBar("http://127.0.0.1:9090/?x=1#token=tkbe_abc%2B");
    expect(takeTokenFromFragment(bar.location, bar.history)).toBe("tkbe_abc+");
    expect(bar.replaced).toEqual(["/?x=1"]);
  });

  it("leaves an address without a token alone", () => {
    const bar = addressBar("http://127.0.0.1:9090/#section");
    expect(takeTokenFromFragment(bar.location, bar.history)).toBeNull();
    expect(bar.replaced).toEqual([]);
  });

  it("removes an empty token from the address bar too, and signs in with nothing", () => {
    const bar = addressBar("http://127.0.0.1:9090/#token=%20");
    expect(takeTokenFromFragment(bar.location, bar.history)).toBeNull();
    expect(bar.replaced).toEqual(["/"]);
  });
});
