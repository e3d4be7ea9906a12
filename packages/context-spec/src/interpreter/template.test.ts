import { describe, expect, it } from "vitest";
import { parseInstant } from "./instant.ts";
import { parseTemplate, renderTemplate, TemplateError } from "./template.ts";

const render = (template: string, context: Record<string, unknown>): string =>
  renderTemplate(parseTemplate(template), context);

describe("template notation", () => {
  it("copies text lines and replaces dotted placeholders", () => {
    expect(render("# {{a.b}}\nx {{n}} y\n", { a: { b: "Title" }, n: 7 })).toBe("# Title\nx 7 y\n");
  });

  it("uses the default for absent, null and empty values only", () => {
    const template = '- {{v | default: "—"}}\n';
    expect(render(template, {})).toBe("- —\n");
    expect(render(template, { v: null })).toBe("- —\n");
    expect(render(template, { v: "" })).toBe("- —\n");
    expect(render(template, { v: "0" })).toBe("- 0\n");
  });

  it("refuses an absent value without a default instead of rendering nothing", () => {
    expect(() => render("{{missing}}\n", {})).toThrow(TemplateError);
  });

  it("repeats the prefix on every line of a multi-line value, and an empty line gets the prefix without its trailing space", () => {
    expect(render("> {{b}}\n", { b: "one\n\ntwo" })).toBe("> one\n>\n> two\n");
    expect(render("  - {{b}}!\n", { b: "a\nb" })).toBe("  - a\n  - b!\n");
  });

  it("repeats each-blocks in the order of their sort keys, and the block lines produce nothing", () => {
    const template =
      "top\n{{#each team-member ordered by rank asc, then id desc}}\n* {{member.id}}\n{{/each}}\nend\n";
    const team = [
      { id: "a", rank: 2 },
      { id: "b", rank: 1 },
      { id: "c", rank: 1 },
    ];
    expect(render(template, { team })).toBe("top\n* c\n* b\n* a\nend\n");
  });

  it("orders instants chronologically and text by code point", () => {
    const template =
      "{{#each team-member ordered by at asc, then id asc}}\n{{member.id}}\n{{/each}}\n";
    const team = [
      { id: "\u{1F600}", at: parseInstant("2026-05-02T14:00:00Z") },
      { id: "\uFF21", at: parseInstant("2026-05-02T16:00:00+02:00") },
      { id: "late", at: parseInstant("2026-05-02T13:00:00-02:00") },
    ];
    expect(render(template, { team })).toBe("\uFF21\n\u{1F600}\nlate\n");
  });

  it.each([
    ["an unclosed block", "{{#each team-member}}\nx\n"],
    ["a stray closing line", "{{/each}}\n"],
    ["a malformed placeholder", "{{ not a path }}\n"],
    ["a brace pair that opens nothing", "{{\n"],
    ["a template without a final line feed", "x"],
    ["an unreadable sort key", "{{#each team-member ordered by id upward}}\n{{/each}}\n"],
  ])("rejects %s", (_name, template) => {
    expect(() => parseTemplate(template)).toThrow(TemplateError);
  });

  it("refuses values that are not text or numbers", () => {
    expect(() => render("{{v}}\n", { v: { nested: true } })).toThrow(TemplateError);
  });
});
