import MarkdownIt from "markdown-it";

/**
 * Mara's answers as formatted text. The answer is the model's text, which anyone in the
 * project can steer (a message can ask Mara to repeat anything), so it is treated as hostile:
 * raw HTML is escaped (`html: false`), images are off (an image would load a URL of the
 * answer's choosing), and a link is kept only for http, https and mailto addresses, opening
 * in a new tab that gets no handle on this one and no referrer.
 */
const SAFE_HREF = /^(?:https?:|mailto:)/i;

export function isSafeHref(href: string): boolean {
  return SAFE_HREF.test(href.trim());
}

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });
// Only addresses written with their scheme become links: a file name such as `CLAUDE.md` or
// `package.json` reads as a domain to fuzzy linkify (.md and .json are top-level domains) and
// would link a workspace file to a stranger's website.
markdown.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
markdown.disable("image");
// markdown-it's own check refuses javascript:, vbscript:, file: and data: URLs; this one lets
// through only the three schemes an answer needs (a relative link would point into the console).
markdown.validateLink = isSafeHref;

markdown.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index];
  if (token !== undefined) {
    // markdown-it keeps a link whose address it refused, with an empty href (`[x]()` too):
    // such an anchor gets no address at all, so it is plain text.
    if (isSafeHref(token.attrGet("href") ?? "")) {
      token.attrSet("target", "_blank");
      token.attrSet("rel", "noopener noreferrer nofollow");
    } else {
      token.attrs = null;
    }
  }
  return self.renderToken(tokens, index, options);
};

/** The button every code block gets; the chat's click handler copies the block's text. */
const COPY_BUTTON = '<button type="button" class="copy-code" data-copy-code>Copy</button>';

const defaultFence = markdown.renderer.rules.fence;
const defaultCodeBlock = markdown.renderer.rules.code_block;
markdown.renderer.rules.fence = (tokens, index, options, env, self) =>
  `<div class="code-block">${COPY_BUTTON}${defaultFence?.(tokens, index, options, env, self) ?? ""}</div>`;
markdown.renderer.rules.code_block = (tokens, index, options, env, self) =>
  `<div class="code-block">${COPY_BUTTON}${defaultCodeBlock?.(tokens, index, options, env, self) ?? ""}</div>`;

/** The answer's Markdown as HTML safe to insert into the page (see above for why). */
export function renderAnswer(text: string): string {
  return markdown.render(text);
}
