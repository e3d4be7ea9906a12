// A throw-away package root with two tiny suites for testing the runner and the case tooling
// against real child processes, independent of the real spec cases.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const FAKE_IMPLEMENTATION = fileURLToPath(
  new URL("../runner/test-fixtures/fake-implementation.mjs", import.meta.url),
);

interface CaseFiles {
  readonly [file: string]: string;
}

function writeCase(root: string, suite: string, id: string, files: CaseFiles): void {
  const dir = path.join(root, "cases", suite, id);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(dir, file), content);
}

/** A case of a generated one-output shout suite: its input and the expected bytes or error. */
export interface ShoutCase {
  readonly id: string;
  readonly input: string;
  readonly expected: string | { readonly code: string; readonly path: string };
}

/** Adds (or replaces) a one-output suite `name` holding exactly `cases` under `root`. */
export function writeShoutSuite(root: string, name: string, cases: readonly ShoutCase[]): void {
  const dir = path.join(root, "cases", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "suite.json"),
    JSON.stringify({
      title: "Shout, generated",
      spec: "spec/shout.md",
      input: "input.txt",
      outputs: [{ arg: "", expected: "expected.txt" }],
    }),
  );
  for (const { id, input, expected } of cases) {
    writeCase(root, name, id, {
      "description.txt": "Generated.\n",
      "input.txt": input,
      ...(typeof expected === "string"
        ? { "expected.txt": expected }
        : { "expected-error.json": `${JSON.stringify(expected)}\n` }),
    });
  }
}

/** Creates the package root; returns its path. */
export function makeShoutPackage(): string {
  const root = mkdtempSync(path.join(tmpdir(), "talkide-shout-"));
  mkdirSync(path.join(root, "spec"));
  writeFileSync(
    path.join(root, "spec", "shout.md"),
    "# Shout\n\nThe output is the input in upper case.\n",
  );
  mkdirSync(path.join(root, "cases", "shout"), { recursive: true });
  writeFileSync(
    path.join(root, "cases", "shout", "suite.json"),
    JSON.stringify({
      title: "Shout",
      spec: "spec/shout.md",
      input: "input.txt",
      outputs: [{ arg: "", expected: "expected.txt" }],
    }),
  );
  writeCase(root, "shout", "hello", {
    "description.txt": "A word.\n",
    "input.txt": "hello\n",
    "expected.txt": "HELLO\n",
  });
  writeCase(root, "shout", "white-space", {
    "description.txt": "Spaces and tabs survive.\n",
    "input.txt": "a b\tc\u00a0d\n",
    "expected.txt": "A B\tC\u00a0D\n",
  });
  writeCase(root, "shout", "bad-word", {
    "description.txt": "A bad word is an error.\n",
    "input.txt": "bad\n",
    "expected-error.json": '{"code":"bad_input","path":"line[0]"}\n',
  });
  mkdirSync(path.join(root, "cases", "shout-pair"), { recursive: true });
  writeFileSync(
    path.join(root, "cases", "shout-pair", "suite.json"),
    JSON.stringify({
      title: "Shout, one line per file",
      spec: "spec/shout.md",
      input: "input.txt",
      outputs: [
        { arg: "first", expected: "expected.first.txt" },
        { arg: "second", expected: "expected.second.txt" },
      ],
    }),
  );
  writeCase(root, "shout-pair", "two-lines", {
    "description.txt": "Each file gets its line.\n",
    "input.txt": "one\ntwo\n",
    "expected.first.txt": "ONE\n",
    "expected.second.txt": "TWO\n",
  });
  return root;
}
