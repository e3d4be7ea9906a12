import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateToken, hashToken, sameSecret } from "./token-hash.ts";

describe("token hashing", () => {
  it("stores what the services have always stored: sha256 of the UTF-8 bytes, lower-case hex", () => {
    // A row written before the kit owned the hash must still match.
    expect(hashToken("tkd_abc")).toBe(
      "504d2ee1cf549e2b113b0bc69567e90f3ca8a087d49d7b85b694a468e50c4f08",
    );
    expect(hashToken("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hashToken("é")).toBe(
      createHash("sha256")
        .update(Buffer.from([0xc3, 0xa9]))
        .digest("hex"),
    );
  });

  it("makes tokens of 256 random bits after their prefix", () => {
    const token = generateToken("tkbe_");
    expect(token).toMatch(/^tkbe_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(5), "base64url")).toHaveLength(32);
    expect(generateToken("tkbe_")).not.toBe(token);
  });

  it("compares secrets of any length without throwing", () => {
    expect(sameSecret("tha_secret", "tha_secret")).toBe(true);
    expect(sameSecret("tha_secre", "tha_secret")).toBe(false);
    expect(sameSecret("", "tha_secret")).toBe(false);
    expect(sameSecret("x".repeat(10_000), "tha_secret")).toBe(false);
  });
});
