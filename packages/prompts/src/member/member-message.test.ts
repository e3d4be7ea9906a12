import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { importSafe } from "../text/import-safe.ts";
import { specPage } from "../test-support/paths.ts";
import { buildMemberMessage, MEMBER_MESSAGE_HEADER } from "./member-message.ts";

/** The page's ```<kind> <id> blocks, each as its lines joined by line feeds (no final one). */
function blocksOf(markdown: string, kind: string): Map<string, string> {
  const blocks = new Map<string, string>();
  const lines = markdown.split("\n");
  lines.forEach((line, start) => {
    const match = new RegExp(`^\`\`\`${kind} ([a-z0-9-]+)$`, "u").exec(line);
    if (match?.[1] === undefined) return;
    const end = lines.indexOf("```", start + 1);
    blocks.set(match[1], lines.slice(start + 1, end).join("\n"));
  });
  return blocks;
}

const page = readFileSync(specPage("member-message.md"), "utf8");
const words = blocksOf(page, "member-message-words");
const expected = blocksOf(page, "member-message");

// The billing header's suffix of the pinned CLI, 2.1.337 (packages/claude-cli/README.md).
function billingSuffix(prompt: string): string {
  const at = (i: number): string => prompt[i] ?? "0";
  return createHash("sha256")
    .update(`59cf53e54c78${at(4)}${at(7)}${at(20)}2.1.337`)
    .digest("hex")
    .slice(0, 3);
}

describe("buildMemberMessage (spec/member-message.md)", () => {
  test("the page's cases come in pairs", () => {
    expect([...words.keys()].sort()).toEqual([...expected.keys()].sort());
    expect(words.size).toBeGreaterThanOrEqual(3);
  });

  test.each([...words.entries()])("case %s: the bytes of the page", (id, value) => {
    expect(buildMemberMessage(value)).toBe(expected.get(id));
  });

  test("the layout block of the page starts with the header line", () => {
    expect(page).toContain(`\`\`\`text\n${MEMBER_MESSAGE_HEADER}\n\nWORDS\n\`\`\``);
  });

  test.prop([fc.string({ minLength: 1 })])(
    "the header, an empty line, then the import-safe words and nothing after them",
    (value) => {
      const message = buildMemberMessage(value);
      expect(message.startsWith(`${MEMBER_MESSAGE_HEADER}\n\n`)).toBe(true);
      expect(message.slice(MEMBER_MESSAGE_HEADER.length + 2)).toBe(importSafe(value));
    },
  );

  test.prop([fc.string({ minLength: 1 }), fc.string({ minLength: 1 })])(
    "any two messages give the pinned CLI the same billing header",
    (a, b) => {
      expect(MEMBER_MESSAGE_HEADER.length).toBeGreaterThan(20);
      expect(billingSuffix(buildMemberMessage(a))).toBe(billingSuffix(buildMemberMessage(b)));
    },
  );

  test.prop([fc.string()])("no `@` of the words stands unescaped at a word start", (value) => {
    const message = buildMemberMessage(value);
    expect(message).not.toMatch(/(^|[\s\u00a0])(\\\\)*@/u);
  });
});
