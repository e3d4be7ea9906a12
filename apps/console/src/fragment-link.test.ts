import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { takeLinkFromFragment } from "./fragment-link.ts";

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

const base64url = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/);
const origins = fc.constantFrom("http://127.0.0.1:9090", "http://[::1]:8080");

describe("takeLinkFromFragment", () => {
  it("takes a sign-in code and removes it from the address bar at once", () => {
    const bar = addressBar("http://127.0.0.1:9090/?x=1#code=tksi_abc%2B");
    expect(takeLinkFromFragment(bar.location, bar.history)).toEqual({
      kind: "sign-in",
      code: "tksi_abc+",
    });
    expect(bar.replaced).toEqual(["/?x=1"]);
  });

  it("takes an invite's code", () => {
    const bar = addressBar("http://127.0.0.1:9090/#invite=tkiv_xyz");
    expect(takeLinkFromFragment(bar.location, bar.history)).toEqual({
      kind: "invite",
      code: "tkiv_xyz",
    });
    expect(bar.replaced).toEqual(["/"]);
  });

  it("refuses an API token in the address, and removes it all the same", () => {
    const bar = addressBar("http://127.0.0.1:9090/#token=tkbe_secret");
    const link = takeLinkFromFragment(bar.location, bar.history);
    expect(link).toEqual({ kind: "refused-token" });
    expect(JSON.stringify(link)).not.toContain("tkbe_secret");
    expect(bar.replaced).toEqual(["/"]);
  });

  it("leaves a fragment that is no link alone", () => {
    const bar = addressBar("http://127.0.0.1:9090/#section");
    expect(takeLinkFromFragment(bar.location, bar.history)).toBeNull();
    expect(bar.replaced).toEqual([]);
  });

  it("removes an empty code from the address bar too, and acts on nothing", () => {
    const bar = addressBar("http://127.0.0.1:9090/#code=%20");
    expect(takeLinkFromFragment(bar.location, bar.history)).toBeNull();
    expect(bar.replaced).toEqual(["/"]);
  });

  test.prop([base64url, origins, fc.constantFrom("code", "invite")])(
    "a link the backend builds, opened, gives back exactly its code",
    (secret, origin, key) => {
      const code = `${key === "code" ? "tksi_" : "tkiv_"}${secret}`;
      const bar = addressBar(`${origin}/#${key}=${code}`);
      expect(takeLinkFromFragment(bar.location, bar.history)).toEqual({
        kind: key === "code" ? "sign-in" : "invite",
        code,
      });
      expect(bar.replaced).toEqual(["/"]);
    },
  );
});
