import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runRender } from "./cli/render-command.ts";
import { parseRenderState } from "./parse.ts";
import { renderClaudeMd, renderContextFiles } from "./render.ts";
import { validStateArb } from "./test-support/arbitraries.ts";

/**
 * Identical state, identical bytes: whatever the clock, the time zone, the locale or the
 * random source of the process that renders it.
 */

const SOURCE_DIR = fileURLToPath(new URL(".", import.meta.url));
const BATCH_SCRIPT = fileURLToPath(new URL("./test-support/render-batch.ts", import.meta.url));

function renderAll(input: unknown): string[] {
  const result = parseRenderState(input);
  if (!result.ok)
    throw new Error(`generated state refused: ${result.error.code} at ${result.error.path}`);
  return [
    renderClaudeMd(result.state),
    ...renderContextFiles(result.state, { layout: "split" }).map((file) => file.content),
  ];
}

const TIME_ZONES = [
  "UTC",
  "Pacific/Kiritimati",
  "America/St_Johns",
  "Asia/Kathmandu",
  "Pacific/Chatham",
  "Etc/GMT+12",
];

describe("determinism", () => {
  const originalTz = process.env["TZ"];
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    if (originalTz === undefined) delete process.env["TZ"];
    else process.env["TZ"] = originalTz;
  });

  test.prop(
    [
      validStateArb(),
      fc.constantFrom(...TIME_ZONES),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    ],
    { numRuns: 1000 },
  )(
    "does not depend on TZ, Date.now, the Date constructor or Math.random",
    (generated, timeZone, now, random) => {
      const reference = renderAll(generated.state);
      try {
        process.env["TZ"] = timeZone;
        vi.useFakeTimers({ now, toFake: ["Date"] });
        vi.spyOn(Math, "random").mockReturnValue(random);
        expect(renderAll(generated.state)).toEqual(reference);
      } finally {
        vi.useRealTimers();
        vi.restoreAllMocks();
        if (originalTz === undefined) delete process.env["TZ"];
        else process.env["TZ"] = originalTz;
      }
    },
  );

  it("gives the same bytes in processes with different locales, time zones, clocks and random sources", () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const states = fc
      .sample(validStateArb(), { numRuns: 1000, seed })
      .map((generated) => generated.state);
    const expected = states.map((state) => {
      const outcome = runRender(new TextEncoder().encode(JSON.stringify(state)), {
        layout: "single",
        file: "CLAUDE.md",
      });
      return outcome.stdout;
    });
    const environments = [
      { TZ: "UTC", LANG: "C", LC_ALL: "C", clock: "0", random: "0" },
      {
        TZ: "Pacific/Kiritimati",
        LANG: "tr_TR.UTF-8",
        LC_ALL: "tr_TR.UTF-8",
        clock: "8640000000000000",
        random: "0.999999",
      },
      {
        TZ: "America/St_Johns",
        LANG: "cs_CZ.UTF-8",
        LC_ALL: "cs_CZ.UTF-8",
        clock: "-8640000000000000",
        random: "0.5",
      },
      {
        TZ: "Asia/Kathmandu",
        LANG: "ar_SA.UTF-8",
        LC_ALL: "ar_SA.UTF-8",
        clock: "1777732331000",
        random: "0.25",
      },
    ];
    const seen = environments.map(({ clock, random, ...env }) => {
      const child = spawnSync(
        process.execPath,
        ["--conditions=@talkide/source", BATCH_SCRIPT, clock, random],
        {
          input: JSON.stringify(states),
          env: { PATH: process.env["PATH"] ?? "", ...env },
          encoding: "utf8",
          maxBuffer: 256 * 1024 * 1024,
        },
      );
      expect(child.status, child.stderr).toBe(0);
      return JSON.parse(child.stdout) as {
        environment: { locale: string; timeZone: string; offset: number };
        outcomes: { exitCode: number; stdout: string; stderr: string }[][];
      };
    });
    // The environments really differ; otherwise this test would prove nothing.
    expect(new Set(seen.map(({ environment }) => environment.locale)).size).toBe(
      environments.length,
    );
    expect(new Set(seen.map(({ environment }) => environment.offset)).size).toBe(
      environments.length,
    );
    for (const { outcomes } of seen) {
      outcomes.forEach(([single, splitClaudeMd, splitWriter], index) => {
        expect(single?.exitCode, `state ${index} of seed ${seed}`).toBe(0);
        expect(single?.stdout, `state ${index} of seed ${seed}`).toBe(expected[index]);
        expect(
          (splitClaudeMd?.stdout ?? "").slice(0, -"@.talkide/active-writer.md\n".length) +
            (splitWriter?.stdout ?? ""),
        ).toBe(expected[index]);
      });
    }
  });

  it("reads no clock, locale, environment or random source in the rendering code", () => {
    // The bin is the only module allowed to touch the process (stdin, stdout, exit code).
    const forbidden =
      /\b(Date|Intl|performance|process|crypto|setTimeout|setInterval)\b|Math\.random|toLocale\w*|localeCompare/u;
    const sources = readdirSync(SOURCE_DIR, { recursive: true, encoding: "utf8" }).filter(
      (file) =>
        file.endsWith(".ts") &&
        !file.endsWith(".test.ts") &&
        !file.includes("test-support") &&
        !file.startsWith("bin") &&
        !file.startsWith("bench"),
    );
    expect(sources.length).toBeGreaterThan(8);
    for (const file of sources) {
      const code = readFileSync(`${SOURCE_DIR}${file}`, "utf8")
        .replace(/\/\*[\s\S]*?\*\//gu, "")
        .replace(/\/\/.*$/gmu, "");
      expect(code, file).not.toMatch(forbidden);
    }
  });
});
