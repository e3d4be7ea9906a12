import { afterEach, describe, expect, it, vi } from "vitest";
import { skipOrFailInCi } from "./server.ts";

describe("skipOrFailInCi", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it.each(["true", "1", "yes"])("fails the suite under CI=%s, saying what to install", (ci) => {
    vi.stubEnv("CI", ci);
    expect(() => skipOrFailInCi("needs initdb; apt-get install -y postgresql.")).toThrow(
      /apt-get install -y postgresql\. Under CI=true this suite fails instead of skipping\./,
    );
  });

  it.each(["", "false", "0"])("skips loudly outside CI (CI=%j)", (ci) => {
    vi.stubEnv("CI", ci);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(skipOrFailInCi("needs initdb.")).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("SKIPPING: needs initdb."));
  });
});
