/**
 * The API's message for one field, in words for the person filling in the form: the field's
 * name is left out (the message stands under the field's label), and the renderer's rules and
 * zod's usual complaints read as advice. Anything not known here keeps the API's own wording
 * (which already says what is wrong), as a sentence.
 */
const ADVICE: Readonly<Record<string, string>> = {
  // The renderer's rule texts (packages/renderer/src/errors.ts), as invalid_field's detail.
  "must be an absolute http:// or https:// URL without white space, or null":
    "Enter a full web address starting with http:// or https://, or leave it empty.",
  "must not be blank": "Fill this in: white space alone is not enough.",
  "must hold at least one character": "Fill this in.",
  "holds a control character or a line break where none is allowed":
    "Remove the line break or control character: this field is one line.",
  "holds an unpaired UTF-16 surrogate, which cannot be written as UTF-8":
    "Remove the broken character (half of an emoji or symbol).",
  "must start with a letter": "Start with a letter.",
  'must not contain a double quote (")': 'Leave out the double quote (").',
};

export function readableFieldMessage(field: string, message: string): string {
  // The renderer's detail starts with the field's name ("url: is too long."): drop it.
  const bare = (message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message)
    .trim()
    .replace(/\.$/, "");
  const advice = ADVICE[bare];
  if (advice !== undefined) return advice;
  if (/received undefined|expected string to have >=1 /i.test(bare)) return "Fill this in.";
  const tooLong = /expected string to have <=(\d+) |^is longer than (\d+) characters$/.exec(bare);
  if (tooLong !== null) return `Use at most ${tooLong[1] ?? tooLong[2] ?? ""} characters.`;
  if (/^Invalid email/i.test(bare)) return "Enter an email address, like anna@example.org.";
  return `${bare.charAt(0).toUpperCase()}${bare.slice(1)}.`;
}
