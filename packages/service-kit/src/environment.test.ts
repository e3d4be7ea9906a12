import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ConfigError, parseEnvironment } from "./environment.ts";

const schema = z.object({
  PORT: z.coerce
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .default(80),
  MODE: z.enum(["a", "b"], { error: "must be a or b" }).optional(),
  NAME: z.string().default("x"),
});

function refusal(env: Record<string, string>, readme?: string): ConfigError {
  try {
    parseEnvironment(schema, env, readme === undefined ? {} : { readme });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("parseEnvironment", () => {
  it("treats blank values as unset and trims the others", () => {
    expect(parseEnvironment(schema, { PORT: "  ", MODE: " b ", NAME: "  n " })).toEqual({
      PORT: 80,
      MODE: "b",
      NAME: "n",
    });
  });

  it("names every bad variable, never its value", () => {
    const error = refusal({ PORT: "eighty-secret", MODE: "c-secret" });
    expect(error.code).toBe("invalid_config");
    expect(error.variable).toBe("PORT");
    expect(error.issues.map((i) => i.variable)).toEqual(["PORT", "MODE"]);
    expect(error.message).toBe("PORT: must be a whole number; MODE: must be a or b");
    expect(error.message).not.toContain("secret");
  });

  it("points at the service's README when it names one", () => {
    expect(refusal({ MODE: "c" }, "apps/x/README.md").message).toBe(
      "Invalid configuration: MODE: must be a or b. Fix these environment variables " +
        "(see apps/x/README.md, Configuration) and start again.",
    );
  });
});
