import {
  codePointLength,
  collapseWhiteSpace,
  hasControlCharacter,
  hasUnpairedSurrogate,
  trimWhiteSpace,
} from "@talkide/text";
import { badRequest } from "./errors.ts";

/** Limits of what the hub stores; the CLI checks the attachment limits too, before uploading. */
export const LIMITS = {
  bodyChars: 32_000,
  charterChars: 16_000,
  titleChars: 200,
  attachmentsPerMessage: 10,
  attachmentBytes: 5 * 1024 * 1024,
  fileNameChars: 255,
  emojiChars: 32,
} as const;

// Lengths are in Unicode code points (codePointLength): what "characters" means in every limit.
export { isBlank } from "@talkide/text";

const NUL = /\0/;

/**
 * User text as stored: NFC, never a lone surrogate (it cannot be UTF-8) nor NUL (Postgres
 * text cannot hold it). Everything else is kept as written; the wake prompt and the CLI's
 * output normalize and neutralize it when they show it.
 */
export function checkText(
  value: string,
  options: { readonly path: string; readonly maxChars: number },
): string {
  if (hasUnpairedSurrogate(value) || NUL.test(value)) {
    throw badRequest(
      "invalid_text",
      `${options.path} holds a character that cannot be stored (NUL or a lone surrogate).`,
      options.path,
    );
  }
  const text = value.normalize("NFC");
  const length = codePointLength(text);
  if (length > options.maxChars) {
    throw badRequest(
      "text_too_long",
      `${options.path} is ${length} characters; at most ${options.maxChars} are allowed.`,
      options.path,
    );
  }
  return text;
}

/** One line of text (a task title): white space runs become one space, then trimmed. */
export function checkLine(
  value: string,
  options: { readonly path: string; readonly maxChars: number },
): string {
  const line = trimWhiteSpace(collapseWhiteSpace(checkText(value, options)));
  if (hasControlCharacter(line))
    throw badRequest(
      "invalid_text",
      `${options.path} must not hold control characters.`,
      options.path,
    );
  return line;
}

const EMOJI_FORBIDDEN = /[\p{White_Space}\p{Cc}[\];,@#"'`\\]|(?!\u200d)\p{Cf}/u;

/**
 * A reaction: a short token such as 👀, ✅ or +1. It ends up in the `[reactions: ...]` suffix,
 * so it cannot hold white space, brackets, `;`, `,`, `@`, quotes or invisible format
 * characters (other than the zero-width joiner of emoji sequences).
 */
export function checkEmoji(value: string): string {
  const emoji = value.normalize("NFC");
  const length = codePointLength(emoji);
  if (
    length === 0 ||
    length > LIMITS.emojiChars ||
    EMOJI_FORBIDDEN.test(emoji) ||
    hasUnpairedSurrogate(emoji)
  ) {
    throw badRequest(
      "invalid_reaction",
      `A reaction is 1–${LIMITS.emojiChars} characters such as 👀 or +1, without spaces, brackets, ';', ',', '@', '#', quotes or backslashes.`,
      "emoji",
    );
  }
  return emoji;
}

/** A file name as shown to readers: a base name, one line, no path separators. */
export function checkFileName(value: string, path: string): string {
  const name = value.normalize("NFC");
  const length = codePointLength(name);
  if (
    length === 0 ||
    length > LIMITS.fileNameChars ||
    name === "." ||
    name === ".." ||
    /[/\\\p{Cc}\u2028\u2029]/u.test(name) ||
    hasUnpairedSurrogate(name)
  ) {
    throw badRequest(
      "invalid_file_name",
      `An attachment name is a file's base name of 1–${LIMITS.fileNameChars} characters without '/', '\\' or control characters.`,
      path,
    );
  }
  return name;
}
