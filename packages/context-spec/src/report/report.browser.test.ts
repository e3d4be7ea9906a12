import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport, currentCases } from "./build.ts";
import { BROKEN_CASE, twoRuntimes, type TwoRuntimes } from "./test-support/two-runtimes.ts";

/**
 * The report page as a person sees it, in Debian's chromium (the playwright package's own
 * browser download is not used): one runtime broken in one case, one required runtime without
 * a result. Without chromium the suite is skipped on a developer's machine and fails under
 * CI=true (scripts/debian-packages.sh installs it).
 */

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
const required = process.env["CI"] === "true";
if (!available && !required)
  console.warn(
    `\n!!! SKIPPING the report page in chromium: no ${CHROMIUM} (CI fails instead) !!!\n`,
  );

describe.runIf(available || required)("the conformance report page in chromium", () => {
  let runs: TwoRuntimes | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: sh scripts/debian-packages.sh`).toBe(
      true,
    );
    const two = await twoRuntimes();
    runs = two;
    const out = join(two.dir, "page");
    // "kotlin" has no result here: the preview must show it as missing.
    const outcome = buildReport({
      resultsDir: two.results,
      outDir: out,
      runtimes: ["reference", "broken", "kotlin"],
      allowIncomplete: true,
    });
    expect(outcome.ok).toBe(true);
    const launched = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    browser = launched;
    page = await launched.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(pathToFileURL(join(out, "index.html")).href);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (runs !== undefined) rmSync(runs.dir, { recursive: true, force: true });
  });

  it("summarizes each runtime with its version, counts and a badge that loaded", async () => {
    const summary = page.locator("table.summary tbody tr");
    expect(await summary.count()).toBe(3);
    const broken = page.locator('table.summary tr[data-runtime="broken"]');
    expect(await broken.getAttribute("data-state")).toBe("failing");
    expect(await broken.locator("td").nth(0).innerText()).toBe("test 1.0");
    expect(await broken.locator("td.failed").innerText()).toBe("1");
    const badges = await page
      .locator("table.summary img")
      .evaluateAll((images) =>
        images.map((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
      );
    expect(badges).toHaveLength(3);
    for (const width of badges) expect(width).toBeGreaterThan(0);
    expect(await page.locator('table.summary tr[data-runtime="kotlin"]').innerText()).toContain(
      "missing",
    );
  });

  it("shows the matrix: pass, the one FAIL, and a missing runtime as missing", async () => {
    const total = currentCases().length;
    expect(await page.locator("table.matrix tbody tr").count()).toBe(total);
    const row = page.locator(`table.matrix tr[data-case="${BROKEN_CASE}"]`);
    expect(await row.locator('td[data-runtime="reference"]').innerText()).toBe("pass");
    expect(await row.locator('td[data-runtime="broken"]').innerText()).toBe("FAIL");
    expect(await page.locator('table.matrix td[data-runtime="kotlin"]').allInnerTexts()).toEqual(
      Array.from({ length: total }, () => "missing"),
    );
    expect(await page.locator("table.matrix td.fail").count()).toBe(1);
  });

  it("leads from the FAIL cell to a byte diff that makes the invisible change visible", async () => {
    await page.locator(`table.matrix tr[data-case="${BROKEN_CASE}"] td.fail a`).click();
    const failure = page.locator(`section.failure[data-case="${BROKEN_CASE}"]`);
    expect(await failure.getAttribute("id")).toBe(new URL(page.url()).hash.slice(1));
    expect(await failure.locator("h4").innerText()).toBe(`broken: ${BROKEN_CASE} (fail)`);
    const diff = await failure.locator("pre.diff").innerText();
    expect(diff).toContain("-#·Projekt⏎");
    expect(diff).toContain("+#<U+00A0>Projekt⏎");
    expect(await failure.locator("pre.diff .del").allInnerTexts()).toEqual(["-#·Projekt⏎"]);
    expect(await failure.locator("pre.diff .ins").allInnerTexts()).toEqual(["+#<U+00A0>Projekt⏎"]);
  });

  it("draws a history line per runtime and runs no script", async () => {
    expect(await page.locator("ul.history li").allInnerTexts()).toEqual([
      `reference (1 run, oldest first): ${String(currentCases().length)}/${String(currentCases().length)}`,
      `broken (1 run, oldest first): ${String(currentCases().length - 1)}/${String(currentCases().length)}`,
      "kotlin (0 runs, oldest first): no runs",
    ]);
    expect(await page.locator("script").count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
