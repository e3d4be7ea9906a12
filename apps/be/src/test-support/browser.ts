import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Debian's chromium package; the playwright package's own browser download is not used. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Why the browser suite cannot run here, or null when it can. Under CI=true the suite fails
 * with this message instead of skipping: a missing browser must never pass unnoticed.
 */
export function browserUnavailableReason(): string | null {
  if (!existsSync(CHROMIUM_PATH)) {
    return `chromium is not installed at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (.ci/run does this).`;
  }
  return null;
}

export interface Browser {
  readonly context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Real Chromium with a fresh profile of its own, removed on close. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "talkide-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: ReadonlyArray<{ readonly target: readonly unknown[] }>;
}

const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve("axe-core/axe.min.js")), "utf8");

/** Runs axe-core in the page; returns the serious and critical violations, readably. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  // A string: this module is type-checked without the DOM library.
  const violations = await page.evaluate<unknown[]>(
    "axe.run().then((result) => result.violations)",
  );
  return (violations as AxeViolation[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.impact ?? "?"} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`,
    );
}
