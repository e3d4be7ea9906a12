import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { isSafeHref, renderAnswer } from "./markdown.ts";

// What must never be in the HTML of an answer. `<` of the answer's own text is always escaped
// (`&lt;`), so every `<` of the output opens a tag markdown-it wrote itself.
const SCRIPT_TAG = /<script/i;
const HANDLER_ATTRIBUTE = /<[^>]*\son\w+\s*=/i;
const UNSAFE_TAG = /<(?:img|iframe|object|embed|svg|math|style|form|input|link|meta|base)\b/i;
const hrefs = (html: string): string[] =>
  [...html.matchAll(/\shref="([^"]*)"/gi)].map((match) => match[1] ?? "");

function expectHarmless(html: string): void {
  expect(html).not.toMatch(SCRIPT_TAG);
  expect(html).not.toMatch(HANDLER_ATTRIBUTE);
  expect(html).not.toMatch(UNSAFE_TAG);
  for (const href of hrefs(html)) expect(href).toMatch(/^(?:https?:|mailto:)/i);
}

const HOSTILE = [
  "<script>window.pwned = 1</script>",
  '<img src=x onerror="window.pwned = 1">',
  "[x](javascript:alert(1))",
  "[x](JaVaScRiPt:alert(1))",
  "[x](&#106;avascript:alert(1))",
  "[x]( javascript:alert(1))",
  "[x](data:text/html;base64,PHNjcmlwdD4=)",
  "[x](vbscript:msgbox(1))",
  '<a href="javascript:alert(1)">x</a>',
  "![x](https://evil.example/track.png)",
  '<div onclick="alert(1)">x</div>',
  "<iframe src=https://evil.example></iframe>",
  '[x](https://ok.example "title" onmouseover=alert(1))',
  "<svg/onload=alert(1)>",
  "`<script>`",
  "```html\n<script>alert(1)</script>\n```",
  "<https://example.org>",
  "<javascript:alert(1)>",
  "www.example.org",
  "mailto:a@example.org",
];

describe("renderAnswer", () => {
  it("formats Markdown: headings, lists, emphasis, inline code", () => {
    const html = renderAnswer("## Plán\n\n- **košík**\n- `npm test`\n\n1. první");
    expect(html).toContain("<h2>Plán</h2>");
    expect(html).toContain("<li><strong>košík</strong></li>");
    expect(html).toContain("<code>npm test</code>");
    expect(html).toContain("<ol>");
  });

  it("gives every code block a Copy button, with the code escaped", () => {
    const html = renderAnswer("```ts\nconst a = '<b>';\n```");
    expect(html).toContain('<button type="button" class="copy-code" data-copy-code>Copy</button>');
    expect(html).toContain("&lt;b&gt;");
    expect(html).toContain('class="language-ts"');
  });

  it("opens links in a new tab that cannot reach back, and links bare addresses with a scheme", () => {
    const html = renderAnswer("[docs](https://vuejs.org) and http://www.example.org");
    expect(html).toContain(
      '<a href="https://vuejs.org" target="_blank" rel="noopener noreferrer nofollow">docs</a>',
    );
    expect(html).toContain('href="http://www.example.org"');
  });

  it("links no file name as if it were a website (CLAUDE.md, package.json, a@b.md)", () => {
    const html = renderAnswer(
      "Read CLAUDE.md, then package.json and .talkide/project.yml; ask a@b.md.",
    );
    expect(html).not.toContain("<a");
    expect(html).toContain("CLAUDE.md");
  });

  it("shows raw HTML as text, never as HTML", () => {
    const html = renderAnswer('<img src=x onerror="window.pwned = 1">');
    expect(html).toBe("<p>&lt;img src=x onerror=&quot;window.pwned = 1&quot;&gt;</p>\n");
  });

  it.each(HOSTILE)("renders %j harmlessly", (input) => {
    expectHarmless(renderAnswer(input));
  });

  it("keeps no link of a refused scheme", () => {
    expect(renderAnswer("[x](javascript:alert(1))")).not.toContain("<a");
    expect(renderAnswer("[x](/v1/me)")).not.toContain("<a");
    expect(isSafeHref("mailto:a@example.org")).toBe(true);
    expect(isSafeHref("ftp://example.org")).toBe(false);
  });

  // Answers made of Markdown syntax, hostile pieces and any text, in any order.
  const piece = fc.oneof(
    fc.constantFrom(...HOSTILE),
    fc.constantFrom("[", "](", ")", "<", ">", "`", "```", "\n", "*", "#", '"', "'", "=", " on"),
    fc.constantFrom("javascript:", "onerror=", "onload=", "script", "img", "a href=", "&#"),
    fc.string(),
  );
  test.prop([fc.array(piece, { maxLength: 25 }).map((pieces) => pieces.join(""))], {
    numRuns: 500,
  })("never renders a script, an event handler or an unsafe link, whatever the answer", (text) => {
    expectHarmless(renderAnswer(text));
  });
});
