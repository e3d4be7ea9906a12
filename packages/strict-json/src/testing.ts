import { fc } from "@fast-check/vitest";
import { CANARY } from "./hostile-urls.ts";

export {
  CANARY,
  HOSTILE_URL_VALUES,
  type HostileUrlValue,
  type HostileUrlWalk,
  type UrlResponse,
  walkHostileUrls,
} from "./hostile-urls.ts";

export type HostileKind =
  | "nul"
  | "lone-surrogate"
  | "nul-in-key"
  | "invalid-utf8"
  | "raw-control"
  | "charset"
  | "deep"
  | "huge"
  | "random-bytes";

export interface HostileBody {
  readonly kind: HostileKind;
  readonly bytes: Uint8Array;
  readonly contentType: string;
  /** The stable codes a service may answer with for this kind. */
  readonly expectedCodes: readonly string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Paths of every string leaf of a valid body: where hostile text is put. */
function stringPaths(value: Json, path: readonly (string | number)[] = []): (string | number)[][] {
  if (typeof value === "string") return [[...path]];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...path, i]));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...path, k]));
  return [];
}

function withValueAt(body: Json, path: readonly (string | number)[], replacement: Json): Json {
  const copy = structuredClone(body);
  if (path.length === 0) return replacement;
  let parent = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  parent[path.at(-1) as string | number] = replacement;
  return copy;
}

const encode = (value: Json): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
];

const LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"];

/** Text around the hostile part: plain, accented, emoji; always with the canary. */
const padding = fc.constantFrom("", "Ahoj ", "Pekárna ", "🥐 ", "line\nbreak ");

const JSON_TYPE = "application/json";

/**
 * Hostile variants of `valid`, a body the route accepts: NUL and lone surrogates (escaped in
 * JSON) in any string or key, bytes that are not UTF-8, raw control bytes, a charset other
 * than UTF-8, bodies nested deeper than any route accepts, bodies over the 1 MiB limit and
 * random bytes. Every variant carries `CANARY` and must be refused with one of
 * `expectedCodes`, changing nothing.
 */
export function hostileBodies(valid: Json): fc.Arbitrary<HostileBody> {
  const paths = stringPaths(valid);
  if (paths.length === 0) throw new Error("hostileBodies needs a body with a string field");
  const path = fc.constantFrom(...paths);
  const at = (p: (string | number)[], text: Json): Uint8Array =>
    encode(withValueAt(valid, p, text));

  const nul = fc.tuple(path, padding, padding).map(([p, a, b]): HostileBody => ({
    kind: "nul",
    bytes: at(p, `${a}${CANARY}\u0000${b}`),
    contentType: JSON_TYPE,
    expectedCodes: ["invalid_text"],
  }));
  const lone = fc
    .tuple(path, padding, fc.constantFrom(...LONE_SURROGATES))
    .map(([p, a, s]): HostileBody => ({
      kind: "lone-surrogate",
      bytes: at(p, `${a}${CANARY}${s}`),
      contentType: JSON_TYPE,
      expectedCodes: ["invalid_text"],
    }));
  const nulInKey = fc.constant<HostileBody>({
    kind: "nul-in-key",
    bytes: encode({ ...(valid as Record<string, Json>), [`${CANARY}\u0000`]: CANARY }),
    contentType: JSON_TYPE,
    expectedCodes: ["invalid_text"],
  });
  const invalidUtf8 = fc
    .tuple(path, padding, fc.constantFrom(...INVALID_UTF8))
    .map(([p, a, bad]): HostileBody => {
      const json = new TextDecoder().decode(at(p, `${a}${CANARY}@@MARK@@`));
      const [before, after] = json.split("@@MARK@@") as [string, string];
      return {
        kind: "invalid-utf8",
        bytes: Buffer.concat([Buffer.from(before), Buffer.from(bad), Buffer.from(after)]),
        contentType: JSON_TYPE,
        expectedCodes: ["invalid_encoding"],
      };
    });
  const rawControl = fc
    .tuple(path, fc.constantFrom(0x00, 0x01, 0x1f))
    .map(([p, byte]): HostileBody => {
      const json = new TextDecoder().decode(at(p, `${CANARY}@@MARK@@`));
      const [before, after] = json.split("@@MARK@@") as [string, string];
      return {
        kind: "raw-control",
        bytes: Buffer.concat([Buffer.from(before), Buffer.from([byte]), Buffer.from(after)]),
        contentType: JSON_TYPE,
        expectedCodes: ["invalid_json"],
      };
    });
  const charset = fc
    .tuple(path, fc.constantFrom("utf-16", "UTF-16LE", "iso-8859-1", "latin1", '"utf-32"'))
    .map(([p, name]): HostileBody => ({
      kind: "charset",
      bytes: at(p, `${CANARY} Pekárna`),
      contentType: `${JSON_TYPE}; charset=${name}`,
      expectedCodes: ["unsupported_charset"],
    }));
  const deep = fc
    .tuple(path, fc.integer({ min: 40, max: 20_000 }), fc.boolean())
    .map(([p, depth, arrays]): HostileBody => {
      const open = arrays ? "[" : '{"a":';
      const close = arrays ? "]" : "}";
      const json = new TextDecoder().decode(at(p, "@@MARK@@"));
      const nested = `${open.repeat(depth)}"${CANARY}"${close.repeat(depth)}`;
      return {
        kind: "deep",
        bytes: Buffer.from(json.replace('"@@MARK@@"', nested)),
        contentType: JSON_TYPE,
        expectedCodes: ["too_deeply_nested"],
      };
    });
  const huge = path.map((p): HostileBody => ({
    kind: "huge",
    bytes: at(p, CANARY.repeat(Math.ceil((1024 * 1024 + 1) / CANARY.length))),
    contentType: JSON_TYPE,
    expectedCodes: ["payload_too_large"],
  }));
  const randomBytes = fc.uint8Array({ maxLength: 2048 }).map((noise): HostileBody => ({
    kind: "random-bytes",
    // The canary first: no JSON value starts with a letter other than t, f or n.
    bytes: Buffer.concat([Buffer.from(CANARY), Buffer.from(noise)]),
    contentType: JSON_TYPE,
    expectedCodes: ["invalid_json", "invalid_encoding"],
  }));
  return fc.oneof(nul, lone, nulInKey, invalidUtf8, rawControl, charset, deep, huge, randomBytes);
}

/** Sends one hostile body over real HTTP; the answer's status, raw text and parsed JSON. */
export async function sendHostile(
  url: string,
  options: { readonly method: string; readonly token: string; readonly hostile: HostileBody },
): Promise<{ status: number; text: string; json: unknown }> {
  const response = await fetch(url, {
    method: options.method,
    headers: {
      authorization: `Bearer ${options.token}`,
      "content-type": options.hostile.contentType,
    },
    body: options.hostile.bytes,
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as unknown };
}
