import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, vi } from "vitest";
import { hostileDelivery, safeToken } from "../test-support/arbitraries.ts";
import { caseFile, specPage, templateBlockOf } from "../test-support/paths.ts";
import { PromptParameterError } from "../text/parameters.ts";
import { STANDING_CAPABILITIES, type StandingCapability } from "./capabilities.ts";
import {
  buildStandingPrompt,
  STANDING_PROMPT,
  STANDING_PROMPT_VERSION,
  standingPromptVersion,
} from "./standing-prompt.ts";

/**
 * The SHA-256 of the default standing prompt. It is written out here on purpose: a change of
 * the prompt's text must be a conscious change of this line too (and of the spec case).
 */
const PINNED_VERSION = "7e783f9ba1b6ce3e52fcf5784a62d4f6d3904a7a1e239d6d648c74a64b50e955";

const template = templateBlockOf(readFileSync(specPage("standing-prompt.md"), "utf8"));

const CAPABILITY_PART = /\{\{#each (\w+)-capability\}\}\n([\s\S]*?)\{\{\/each\}\}\n/g;

/** The spec's template with the names put in and each capability's part kept or dropped. */
function fromTemplate(
  brand: string,
  cli: string,
  capabilities: readonly StandingCapability[] = [],
): string {
  return template
    .replace(CAPABILITY_PART, (_, name: string, part: string) =>
      (capabilities as readonly string[]).includes(name) ? part : "",
    )
    .replaceAll("{{brand}}", brand)
    .replaceAll("{{cli}}", cli);
}

const capabilitiesArbitrary = fc.array(fc.constantFrom(...STANDING_CAPABILITIES), {
  maxLength: 4,
});

const brandArbitrary = fc
  .tuple(fc.stringMatching(/^\p{L}$/u), fc.stringMatching(/^[\p{L}\p{Nd}._-]{0,63}$/u))
  .map(([first, rest]) => first + rest);
const cliArbitrary = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);

describe("text", () => {
  test("the default prompt is the case standing-prompt/ticlawk-defaults, byte for byte", () => {
    const expected = readFileSync(
      caseFile("standing-prompt", "ticlawk-defaults", "expected.md"),
      "utf8",
    );
    expect(STANDING_PROMPT).toBe(expected);
  });

  test("the TypeScript copy of the text equals the spec's template for the default names", () => {
    expect(STANDING_PROMPT).toBe(fromTemplate("Ticlawk", "ticlawk"));
  });

  test.prop([brandArbitrary, cliArbitrary, capabilitiesArbitrary])(
    "for any valid brand, CLI and capability set it is the spec's template, filled in",
    (brand, cli, capabilities) => {
      expect(buildStandingPrompt({ brand, cli, capabilities })).toBe(
        fromTemplate(brand, cli, capabilities),
      );
    },
  );

  test.prop([capabilitiesArbitrary, capabilitiesArbitrary])(
    "the bytes depend on the capability set only, not on order or repetition",
    (a, b) => {
      const same = new Set(a).size === new Set(b).size && a.every((name) => b.includes(name));
      const first = buildStandingPrompt({ brand: "Ticlawk", cli: "ticlawk", capabilities: a });
      const second = buildStandingPrompt({ brand: "Ticlawk", cli: "ticlawk", capabilities: b });
      expect(first === second).toBe(same);
    },
  );

  test("a command is named only when its capability is served", () => {
    const commands = { reminders: "ticlawk reminder", services: "ticlawk service" } as const;
    for (const served of [[], ["reminders"], ["services"], ["reminders", "services"]] as const) {
      const prompt = buildStandingPrompt({
        brand: "Ticlawk",
        cli: "ticlawk",
        capabilities: served,
      });
      for (const name of STANDING_CAPABILITIES) {
        expect(prompt.includes(commands[name])).toBe((served as readonly string[]).includes(name));
      }
      expect(/reminder/i.test(prompt)).toBe((served as readonly string[]).includes("reminders"));
    }
  });

  test("an unknown capability or a non-array is refused at its path", () => {
    expect(() =>
      buildStandingPrompt({
        brand: "Ticlawk",
        cli: "ticlawk",
        capabilities: ["reminders", "cron"] as unknown as StandingCapability[],
      }),
    ).toThrow(expect.objectContaining({ code: "invalid_field", path: "capabilities[1]" }));
    expect(() =>
      buildStandingPrompt({
        brand: "Ticlawk",
        cli: "ticlawk",
        capabilities: "reminders" as unknown as StandingCapability[],
      }),
    ).toThrow(expect.objectContaining({ code: "invalid_field", path: "capabilities" }));
  });

  test("canonical bytes: NFC, \\n line ends, no trailing white space, one final \\n", () => {
    expect(STANDING_PROMPT.normalize("NFC")).toBe(STANDING_PROMPT);
    expect(STANDING_PROMPT).not.toMatch(/\r/);
    expect(STANDING_PROMPT).not.toMatch(/[ \t]$/m);
    expect(STANDING_PROMPT.endsWith("\n")).toBe(true);
    expect(STANDING_PROMPT.endsWith("\n\n")).toBe(false);
  });

  test("it covers the goal/task protocol module and its lifecycle", () => {
    expect(STANDING_PROMPT).toContain("## [protocol:goal-task-protocol]");
    expect(STANDING_PROMPT).toContain(
      "`todo` → `in_progress` → `in_review` → `done`, and `canceled`",
    );
    for (const reason of ["mention", "assignment", "dm", "ambient", "reply_follow", "manual"]) {
      expect(STANDING_PROMPT).toContain(`\`reason=${reason}\``);
    }
  });
});

describe("identity-free and byte-stable", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  test.prop(
    [
      hostileDelivery,
      safeToken,
      fc.record({ sessionId: fc.uuid(), hostId: safeToken, conversationId: safeToken }),
    ],
    { numRuns: 1000 },
  )(
    "any delivery, agent id or session passed along gives the same bytes",
    (inbound, agentId, extra) => {
      const parameters = { brand: "Ticlawk", cli: "ticlawk", agentId, inbound, ...extra };
      expect(buildStandingPrompt(parameters)).toBe(STANDING_PROMPT);
    },
  );

  test.prop(
    [
      fc.date({ min: new Date("1970-01-01"), max: new Date("2200-01-01"), noInvalidDate: true }),
      fc.constantFrom(
        "UTC",
        "Pacific/Kiritimati",
        "America/Adak",
        "Asia/Kathmandu",
        "Europe/Prague",
      ),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    ],
    { numRuns: 1000 },
  )("no clock, time zone or random number reaches it", (now, timeZone, random) => {
    vi.useFakeTimers({ now });
    vi.stubEnv("TZ", timeZone);
    vi.spyOn(Math, "random").mockReturnValue(random);
    vi.advanceTimersByTime(86_400_000);
    const prompt = buildStandingPrompt({ brand: "Ticlawk", cli: "ticlawk" });
    expect(prompt).toBe(STANDING_PROMPT);
    expect(standingPromptVersion(prompt)).toBe(STANDING_PROMPT_VERSION);
  });

  test("its sources never touch a clock, randomness, the environment or the process", () => {
    const sources = ["standing-prompt.ts", "standing-prompt-template.generated.ts"].map((file) =>
      readFileSync(new URL(file, import.meta.url), "utf8"),
    );
    const forbidden =
      /\b(Date|performance|process|Math\.random|randomUUID|randomBytes|getRandomValues|Intl|toLocale\w*|hrtime|setTimeout|setInterval)\b/;
    for (const source of sources) expect(source).not.toMatch(forbidden);
  });

  test("it holds nothing that looks like an id, a time or a per-message value", () => {
    expect(STANDING_PROMPT).not.toMatch(/\d{3,}/);
    expect(STANDING_PROMPT).not.toMatch(/\b[0-9a-f]{8}-[0-9a-f]{4}-/i);
    expect(STANDING_PROMPT).not.toMatch(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b/i);
    expect(STANDING_PROMPT).not.toMatch(/\d{1,2}:\d{2}/);
    expect(STANDING_PROMPT).not.toMatch(/\b[a-z]+-\d+\b/i);
    expect(STANDING_PROMPT).not.toMatch(/\{\{|\}\}|undefined|null|NaN|\[object /);
  });
});

describe("version", () => {
  test("is the SHA-256 of the prompt's UTF-8 bytes, pinned", () => {
    const expected = createHash("sha256")
      .update(Buffer.from(STANDING_PROMPT, "utf8"))
      .digest("hex");
    expect(STANDING_PROMPT_VERSION).toBe(expected);
    expect(STANDING_PROMPT_VERSION).toMatch(/^[0-9a-f]{64}$/);
    expect(STANDING_PROMPT_VERSION).toBe(PINNED_VERSION);
  });

  test.prop([fc.string({ unit: "binary" })], { numRuns: 1000 })(
    "the version of any text is the SHA-256 of its UTF-8 bytes, the same every time",
    (text) => {
      const sha = createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
      expect(standingPromptVersion(text)).toBe(sha);
      expect(standingPromptVersion(text.slice())).toBe(sha);
    },
  );

  test.prop(
    [
      fc.nat({ max: STANDING_PROMPT.length - 1 }),
      fc.string({ unit: "binary", minLength: 1, maxLength: 3 }),
    ],
    { numRuns: 1000 },
  )("any change of the text changes the version", (at, inserted) => {
    const changed = STANDING_PROMPT.slice(0, at) + inserted + STANDING_PROMPT.slice(at + 1);
    fc.pre(changed !== STANDING_PROMPT);
    expect(standingPromptVersion(changed)).not.toBe(STANDING_PROMPT_VERSION);
  });

  test("different names give different prompts and versions", () => {
    const other = buildStandingPrompt({ brand: "TalkIDE", cli: "talkide" });
    expect(other).not.toBe(STANDING_PROMPT);
    expect(standingPromptVersion(other)).not.toBe(STANDING_PROMPT_VERSION);
  });
});

describe("parameters", () => {
  const cases: [unknown, string, string][] = [
    [{ cli: "ticlawk" }, "missing_field", "brand"],
    [{ brand: "Ticlawk" }, "missing_field", "cli"],
    [{ brand: 7, cli: "ticlawk" }, "invalid_field", "brand"],
    [{ brand: "Tic Lawk", cli: "ticlawk" }, "invalid_field", "brand"],
    [{ brand: "# Ticlawk", cli: "ticlawk" }, "invalid_field", "brand"],
    [{ brand: "Ticlawk", cli: "tic lawk" }, "invalid_field", "cli"],
    [{ brand: "Ticlawk", cli: "-ticlawk" }, "invalid_field", "cli"],
    [{ brand: "Ticlawk", cli: "tic`lawk" }, "invalid_field", "cli"],
    [null, "invalid_field", ""],
  ];
  test.each(cases)("%j is refused with %s at %j", (input, code, path) => {
    const attempt = () => buildStandingPrompt(input as { brand: string; cli: string });
    expect(attempt).toThrow(PromptParameterError);
    expect(attempt).toThrow(expect.objectContaining({ code, path }));
  });

  test.prop([fc.string({ unit: "binary" }), fc.string({ unit: "binary" })], { numRuns: 1000 })(
    "names outside the charsets never reach the text; valid names never change its layout",
    (brand, cli) => {
      const brandValid = /^\p{L}[\p{L}\p{Nd}._-]{0,63}$/u.test(brand);
      const cliValid = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(cli);
      if (!brandValid || !cliValid) {
        expect(() => buildStandingPrompt({ brand, cli })).toThrow(PromptParameterError);
        return;
      }
      const prompt = buildStandingPrompt({ brand, cli });
      const lines = prompt.split("\n");
      const defaultLines = STANDING_PROMPT.split("\n");
      expect(lines.length).toBe(defaultLines.length);
      lines.forEach((line, index) => {
        expect(line.startsWith("#")).toBe(defaultLines[index]?.startsWith("#"));
      });
    },
  );

  test("the error message never repeats the value", () => {
    try {
      buildStandingPrompt({ brand: "secret value!", cli: "ticlawk" });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain("secret");
    }
  });
});
