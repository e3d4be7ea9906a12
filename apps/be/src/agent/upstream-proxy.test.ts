import { describe, expect, it } from "vitest";
import { upstreamProxy } from "./upstream-proxy.ts";

describe("the proxy the gateway reaches the provider through", () => {
  const api = "https://api.anthropic.com";
  it("takes HTTPS_PROXY for an https provider and HTTP_PROXY for an http one, either case", () => {
    expect(upstreamProxy(api, { HTTPS_PROXY: "http://proxy:3128" })).toBe("http://proxy:3128");
    expect(upstreamProxy(api, { https_proxy: " http://p:1 " })).toBe("http://p:1");
    expect(upstreamProxy(api, { HTTP_PROXY: "http://proxy:3128" })).toBeNull();
    expect(upstreamProxy("http://llm.internal:8080", { HTTP_PROXY: "http://p:1" })).toBe(
      "http://p:1",
    );
    expect(upstreamProxy(api, {})).toBeNull();
  });

  it("leaves out what NO_PROXY lists, and anything on loopback", () => {
    const proxied = { HTTPS_PROXY: "http://p:1" };
    expect(upstreamProxy(api, { ...proxied, NO_PROXY: "anthropic.com" })).toBeNull();
    expect(upstreamProxy(api, { ...proxied, no_proxy: "internal, .anthropic.com:443" })).toBeNull();
    expect(upstreamProxy(api, { ...proxied, NO_PROXY: "*" })).toBeNull();
    expect(upstreamProxy(api, { ...proxied, NO_PROXY: "thropic.com,example.org" })).toBe(
      "http://p:1",
    );
    for (const local of ["https://127.0.0.1:8080", "https://localhost", "https://[::1]:9"]) {
      expect(upstreamProxy(local, proxied)).toBeNull();
    }
  });
});
