#!/usr/bin/env node
/**
 * Test helper, run as a child process by environment.test.ts: renders a JSON array of render
 * states (stdin) through the bin's own code path and prints the outcomes together with what
 * this process believes its locale, time zone, clock and random source are. Each child is
 * started with a different TZ/LANG, and the clock and random source are replaced here too.
 */
import { buffer } from "node:stream/consumers";
import { runRender } from "../cli/render-command.ts";

const clock = Number(process.argv[2] ?? "0");
const random = Number(process.argv[3] ?? "0");
Date.now = () => clock;
Math.random = () => random;

const states = JSON.parse(new TextDecoder().decode(await buffer(process.stdin))) as unknown[];
const encoder = new TextEncoder();
const outcomes = states.map((state) => {
  const input = encoder.encode(JSON.stringify(state));
  return [
    runRender(input, { layout: "single", file: "CLAUDE.md" }),
    runRender(input, { layout: "split", file: "CLAUDE.md" }),
    runRender(input, { layout: "split", file: ".talkide/active-writer.md" }),
  ];
});
const options = Intl.DateTimeFormat().resolvedOptions();
process.stdout.write(
  JSON.stringify({
    environment: {
      locale: options.locale,
      timeZone: options.timeZone,
      offset: new Date(0).getTimezoneOffset(),
    },
    outcomes,
  }),
);
