import { existsSync, readFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
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
  /** The first context: one person's cookies and storage. */
  readonly context: BrowserContext;
  newPage(): Promise<Page>;
  /** Another context: a second person at another computer, sharing nothing with the first. */
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Real Chromium; each context is an incognito-like profile of its own, gone on close. */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  const newContext = (): Promise<BrowserContext> =>
    browser.newContext({ viewport: { width: 1280, height: 900 } });
  const context = await newContext();
  return {
    context,
    newPage: () => context.newPage(),
    newContext,
    close: () => browser.close(),
  };
}

/**
 * Collects what a page writes to the browser's console as errors, and the requests that
 * failed or answered 4xx/5xx (a missing favicon logs "Failed to load resource: 401").
 */
export function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    // The location names the resource a "Failed to load resource" message is about.
    if (message.type() === "error") {
      errors.push(`console: ${message.text()} (${message.location().url})`);
    }
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  return errors;
}

/** A request a test expects to fail (a signed-out page's `GET /v1/me`, a refused link). */
export interface ExpectedFailure {
  readonly status: number;
  /** The request's absolute URL, or a pattern for URLs holding an id. */
  readonly url: string | RegExp;
}

/**
 * The errors of `collectConsoleErrors` less those the walk itself asked for: each expected
 * failure's response line and the browser's "Failed to load resource" line about it.
 */
export function withoutExpectedFailures(
  errors: readonly string[],
  expected: readonly ExpectedFailure[],
): string[] {
  const urlOf = (line: string, status: number): string | null => {
    if (line.startsWith(`${status} `)) return line.slice(`${status} `.length);
    const failed = `console: Failed to load resource: the server responded with a status of ${status} `;
    return line.startsWith(failed) ? (/\((\S+)\)$/.exec(line)?.[1] ?? null) : null;
  };
  return errors.filter(
    (line) =>
      !expected.some(({ status, url }) => {
        const failed = urlOf(line, status);
        if (failed === null) return false;
        return typeof url === "string" ? failed === url : url.test(failed);
      }),
  );
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
  // Evaluated through the DevTools protocol, not as a <script> tag: the console's CSP refuses
  // inline scripts (as it should), and axe must not need a hole in it.
  await page.evaluate(`${AXE_SOURCE}\n;true`);
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

/**
 * A TCP proxy in front of the service, for a browser to see the service go away and come
 * back while the service itself (its database, its turns) carries on: `stop()` cuts every
 * connection and refuses new ones, as a stopped service does; `start()` accepts again on the
 * same port, so the pages' origin stays the same. Host and Origin pass through unchanged.
 */
export interface ServiceOutage {
  /** The proxy's base URL (`http://127.0.0.1:<port>`): what the browser opens. */
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startOutageProxy(target: string): Promise<ServiceOutage> {
  const { port: targetPort, hostname } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  let server = createServer();
  let port = 0;
  const listen = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = connect(Number(targetPort), hostname);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        resolve();
      });
    });
    const address = server.address();
    if (address !== null && typeof address === "object") port = address.port;
  };
  const stop = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    stop,
    start: listen,
    close: async () => {
      if (server.listening) await stop();
    },
  };
}

/** Every axe-core violation (any impact) inside `selector`, readably. */
export async function axeViolationsIn(page: Page, selector: string): Promise<string[]> {
  await page.evaluate(`${AXE_SOURCE}\n;true`);
  const violations = await page.evaluate<unknown[]>(
    `axe.run(${JSON.stringify(selector)}).then((result) => result.violations)`,
  );
  return (violations as AxeViolation[]).map(
    (v) =>
      `${v.impact ?? "?"} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`,
  );
}
