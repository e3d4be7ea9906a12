/**
 * A browser session's name as a person recognises it ("Chrome 156 on Linux"), from the
 * User-Agent the browser sent at sign-in; the whole string stays available as a tooltip. An
 * agent this does not know is shown as sent (cut to 80 characters).
 */
const BROWSERS: ReadonlyArray<readonly [name: string, pattern: RegExp]> = [
  // Order matters: Edge and Opera also say "Chrome", Chrome also says "Safari".
  ["Edge", /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ["Opera", /\bOPR\/(\d+)/],
  ["Firefox", /\bFirefox\/(\d+)/],
  ["Chrome", /\b(?:Headless)?Chrome\/(\d+)/],
  ["Safari", /\bVersion\/(\d+)[^ ]* .*\bSafari\//],
  ["curl", /^curl\/(\d+)/],
];

const SYSTEMS: ReadonlyArray<readonly [name: string, pattern: RegExp]> = [
  ["Android", /\bAndroid\b/],
  ["iOS", /\b(?:iPhone|iPad|iPod)\b/],
  ["Windows", /\bWindows\b/],
  ["macOS", /\bMac OS X\b/],
  ["ChromeOS", /\bCrOS\b/],
  ["Linux", /\bLinux\b/],
];

export function browserLabel(userAgent: string | null): string {
  if (userAgent === null || userAgent.trim() === "") return "Unknown browser";
  const browser = BROWSERS.find(([, pattern]) => pattern.test(userAgent));
  const system = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))?.[0];
  if (browser === undefined) {
    return userAgent.length > 80 ? `${userAgent.slice(0, 79)}…` : userAgent;
  }
  const version = browser[1].exec(userAgent)?.[1];
  const name = version === undefined ? browser[0] : `${browser[0]} ${version}`;
  return system === undefined ? name : `${name} on ${system}`;
}
