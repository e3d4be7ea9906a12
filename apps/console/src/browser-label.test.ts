import { describe, expect, it } from "vitest";
import { browserLabel } from "./browser-label.ts";

describe("browserLabel", () => {
  it("names common browsers and systems as people know them", () => {
    expect(
      browserLabel(
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
      ),
    ).toBe("Chrome 156 on Linux");
    expect(
      browserLabel(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      ),
    ).toBe("Edge 131 on Windows");
    expect(
      browserLabel(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0",
      ),
    ).toBe("Firefox 128 on macOS");
    expect(
      browserLabel(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari 17 on iOS");
    expect(browserLabel("curl/8.5.0")).toBe("curl 8");
  });

  it("shows an unknown agent as sent, cut short, and a missing one in words", () => {
    expect(browserLabel(null)).toBe("Unknown browser");
    expect(browserLabel("  ")).toBe("Unknown browser");
    expect(browserLabel("my-script/1.0")).toBe("my-script/1.0");
    expect(browserLabel("x".repeat(200))).toHaveLength(80);
  });
});
