import { fc } from "@fast-check/vitest";

/**
 * A canary: a random string unique enough that finding it anywhere in an output, a message
 * or a thrown error can only mean it was copied there.
 */
export const canaryArb: fc.Arbitrary<string> = fc
  .stringMatching(/^[a-z0-9]{20}$/)
  .map((suffix) => `canary-${suffix}`);

/** Key names that personal data tends to hide under, plus ones that trip naive objects. */
const suspiciousKeys = [
  "email",
  "displayName",
  "fullName",
  "name",
  "phone",
  "address",
  "userId",
  "Salutation",
  "team_briefing",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "",
  " ",
  "a.b",
  "[0]",
];

/** Any key name at all, weighted towards the suspicious ones. */
export const anyKeyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...suspiciousKeys) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
);

/** Filler JSON values that carry no canary. */
const fillerArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.string({ maxLength: 8 }),
);

/**
 * A JSON value that contains `canary` somewhere: as the value itself, or nested at any depth
 * inside arrays and objects under any key name.
 */
export function nestedCanaryArb(canary: string): fc.Arbitrary<unknown> {
  const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant(canary),
      fc
        .tuple(
          fc.array(fillerArb, { maxLength: 3 }),
          tie("tree"),
          fc.array(fillerArb, { maxLength: 3 }),
        )
        .map(([before, inner, after]) => [...before, inner, ...after]),
      fc
        .tuple(
          anyKeyArb,
          tie("tree"),
          fc.dictionary(fc.string({ maxLength: 6 }), fillerArb, { maxKeys: 3 }),
        )
        .map(([key, inner, siblings]) => objectWith(siblings, key, inner)),
    ),
  }));
  return tree;
}

/** Builds a plain object that has `key` as an own property, even when `key` is `__proto__`. */
export function objectWith(
  base: Record<string, unknown>,
  key: string,
  value: unknown,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) Object.defineProperty(result, k, ownProperty(v));
  Object.defineProperty(result, key, ownProperty(value));
  return result;
}

function ownProperty(value: unknown): PropertyDescriptor {
  return { value, enumerable: true, writable: true, configurable: true };
}

/** Everything an error can leak through: its message, its stack, its own fields, its string form. */
export function everythingAbout(error: unknown): string {
  if (!(error instanceof Error)) return safeJson(error);
  return [
    String(error),
    error.message,
    error.stack ?? "",
    safeJson(Object.fromEntries(Object.entries(error))),
  ].join("\n");
}

export function safeJson(value: unknown): string {
  // JSON.stringify gives undefined (not a string) for undefined, whatever its type says.
  const text: unknown = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "bigint" ? v.toString() : v,
  );
  return typeof text === "string" ? text : "";
}

/** A copy of `record` without `key`. */
export function without<T extends object>(record: T, key: keyof T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key)) as Partial<T>;
}
