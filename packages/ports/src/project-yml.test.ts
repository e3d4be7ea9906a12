import { describe, expect } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { parse as parseWithYamlLibrary, stringify } from "yaml";
import { PortsError } from "./errors.ts";
import { decodeProjectYml, parseProjectYml } from "./project-yml-parse.ts";
import { renderProjectYml } from "./project-yml-render.ts";

// Contract section 3, copied byte for byte.
const CONTRACT_ID_7 = `# Generated from project id 7. Do not edit: rewritten before every agent spawn.
version: 1
project:
  id: 7
ports:
  be: 8097
  fe: 5207
urls:
  be: http://localhost:8097
  fe: http://localhost:5207
platform:
  reserved_ports: [9090, 5200]
`;

const ALL_IDS = Array.from({ length: 999 }, (_, index) => index + 1);
const validId = fc.integer({ min: 1, max: 999 });

function expectedValues(id: number): unknown {
  return {
    version: 1,
    project: { id },
    ports: { be: 8090 + id, fe: 5200 + id },
    urls: { be: `http://localhost:${8090 + id}`, fe: `http://localhost:${5200 + id}` },
    platform: { reserved_ports: [9090, 5200] },
  };
}

function parseError(text: string): PortsError {
  try {
    parseProjectYml(text);
  } catch (error) {
    if (error instanceof PortsError) return error;
    throw error;
  }
  throw new Error("expected parseProjectYml to refuse the text");
}

describe("renderProjectYml", () => {
  test("writes the contract's bytes for id 7", () => {
    expect(renderProjectYml(7)).toBe(CONTRACT_ID_7);
  });

  test("every file of the domain has the canonical form: ASCII, 12 lines, \\n, no trailing space", () => {
    for (const id of ALL_IDS) {
      const text = renderProjectYml(id);
      expect(text).toMatch(/^[\x20-\x7e\n]*$/);
      expect(text.endsWith("\n") && !text.endsWith("\n\n")).toBe(true);
      expect(text.split("\n")).toHaveLength(13);
      expect(text).not.toMatch(/ \n/);
    }
  });

  test("is plain YAML: a YAML library reads the same values the parser returns", () => {
    for (const id of ALL_IDS) {
      expect(parseWithYamlLibrary(renderProjectYml(id))).toEqual(expectedValues(id));
    }
  });

  test.prop([validId], { numRuns: 1000 })("is deterministic", (id) => {
    expect(renderProjectYml(id)).toBe(renderProjectYml(id));
  });

  test.prop([fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 1000 }), fc.double())], {
    numRuns: 1000,
  })("refuses every id outside 1–999 with invalid_project_id", (id) => {
    fc.pre(!(Number.isInteger(id) && id >= 1 && id <= 999));
    expect(() => renderProjectYml(id)).toThrow(
      expect.objectContaining({ code: "invalid_project_id", path: "projectId" }),
    );
  });
});

describe("parseProjectYml", () => {
  test("round-trips every id of the domain", () => {
    for (const id of ALL_IDS) {
      expect(parseProjectYml(renderProjectYml(id))).toEqual(expectedValues(id));
    }
  });

  test.prop([validId], { numRuns: 1000 })("is deterministic and round-trips", (id) => {
    const text = renderProjectYml(id);
    const first = parseProjectYml(text);
    expect(parseProjectYml(text)).toEqual(first);
    expect(renderProjectYml(first.project.id)).toBe(text);
  });

  const mutation = fc.record({
    id: validId,
    at: fc.nat(),
    remove: fc.nat({ max: 3 }),
    insert: fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.constantFrom("9", "0", " ", "\n", "#", ":", "-"),
    ),
  });

  test.prop([mutation], { numRuns: 1000 })(
    "accepts an edited file only if the edit changed nothing: everything else is a PortsError",
    ({ id, at, remove, insert }) => {
      const original = renderProjectYml(id);
      const position = at % (original.length + 1);
      const edited = original.slice(0, position) + insert + original.slice(position + remove);
      let accepted: ReturnType<typeof parseProjectYml> | null = null;
      try {
        accepted = parseProjectYml(edited);
      } catch (error) {
        expect(error).toBeInstanceOf(PortsError);
      }
      if (accepted !== null) expect(edited).toBe(renderProjectYml(accepted.project.id));
    },
  );

  test.prop([fc.string({ maxLength: 400 })], { numRuns: 1000 })(
    "refuses arbitrary text with a PortsError, never another kind of exception",
    (text) => {
      expect(() => parseProjectYml(text)).toThrow(PortsError);
    },
  );

  // Each field is either right or wrong in one typical way; the file is then written by the
  // YAML library (so its layout is never the canonical one). The error must be the one of the
  // first wrong field in the documented check order, and not_canonical when all are right.
  const faults = fc.record({
    id: validId,
    version: fc.boolean(),
    projectId: fc.boolean(),
    be: fc.constantFrom("right", "platform", "mismatch"),
    fe: fc.constantFrom("right", "platform", "mismatch"),
    urlBe: fc.boolean(),
    urlFe: fc.boolean(),
    reserved: fc.boolean(),
  });

  test.prop([faults], { numRuns: 1000 })(
    "reports the first fault in the documented order, whatever else is wrong",
    (f) => {
      const be = 8090 + f.id;
      const fe = 5200 + f.id;
      const port = (kind: string, right: number, platform: number): number =>
        kind === "right" ? right : kind === "platform" ? platform : right + 1000;
      const document = {
        version: f.version ? 1 : 2,
        project: { id: f.projectId ? f.id : 1000 + f.id },
        ports: { be: port(f.be, be, 9090), fe: port(f.fe, fe, 5200) },
        urls: {
          be: f.urlBe ? `http://localhost:${be}` : `http://127.0.0.1:${be}`,
          fe: f.urlFe ? `http://localhost:${fe}` : `http://127.0.0.1:${fe}`,
        },
        platform: { reserved_ports: f.reserved ? [9090, 5200] : [5200, 9090] },
      };
      const expected: [string, string] = !f.version
        ? ["unsupported_version", "version"]
        : !f.projectId
          ? ["invalid_project_id", "project.id"]
          : f.be !== "right"
            ? [f.be === "platform" ? "platform_port" : "port_mismatch", "ports.be"]
            : f.fe !== "right"
              ? [f.fe === "platform" ? "platform_port" : "port_mismatch", "ports.fe"]
              : !f.urlBe
                ? ["url_mismatch", "urls.be"]
                : !f.urlFe
                  ? ["url_mismatch", "urls.fe"]
                  : !f.reserved
                    ? ["reserved_ports_mismatch", "platform.reserved_ports"]
                    : ["not_canonical", ""];
      const error = parseError(stringify(document));
      expect([error.code, error.path]).toEqual(expected);
    },
  );

  test("a file for one project with another project's ports is a port mismatch", () => {
    const tampered = renderProjectYml(7).replace("be: 8097", "be: 8098");
    expect(parseError(tampered)).toMatchObject({ code: "port_mismatch", path: "ports.be" });
  });

  test("a platform port anywhere is named as such, before the derivation check", () => {
    const text = renderProjectYml(7);
    expect(parseError(text.replace("be: 8097", "be: 9090"))).toMatchObject({
      code: "platform_port",
      path: "ports.be",
    });
    expect(parseError(text.replace("fe: 5207", "fe: 5200"))).toMatchObject({
      code: "platform_port",
      path: "ports.fe",
    });
    expect(
      parseError(text.replace("fe: http://localhost:5207", "fe: http://localhost:5200")),
    ).toMatchObject({ code: "platform_port", path: "urls.fe" });
  });

  test("another version, an extra key and a foreign document are refused", () => {
    const text = renderProjectYml(7);
    expect(parseError(text.replace("version: 1", "version: 2"))).toMatchObject({
      code: "unsupported_version",
    });
    expect(parseError(`${text}extra: true\n`)).toMatchObject({
      code: "unknown_field",
      path: "extra",
    });
    expect(parseError("name: something else\n")).toMatchObject({
      code: "missing_field",
      path: "version",
    });
    expect(parseError("version: 1\n")).toMatchObject({ code: "missing_field", path: "project" });
  });

  test("an unknown key with an odd name gets a quoted path", () => {
    expect(parseError(`${renderProjectYml(7)}"a.b": 1\n`)).toMatchObject({
      code: "unknown_field",
      path: '["a.b"]',
    });
  });

  test("error messages say what to do and never echo the whole file", () => {
    const error = parseError(renderProjectYml(7).replace("# Generated", "# Edited"));
    expect(error.code).toBe("not_canonical");
    expect(error.message).toMatch(/Do not edit it/);
  });
});

describe("size and encoding", () => {
  const canonical = renderProjectYml(7);

  test("more than 4096 UTF-8 bytes is file_too_large, counted in bytes, not characters", () => {
    const padding = "# ž\n".repeat(900); // 900 × 5 bytes, but only 900 × 4 characters
    expect((canonical + padding).length).toBeLessThan(4096);
    expect(parseError(canonical + padding)).toMatchObject({ code: "file_too_large", path: "" });
    expect(parseError(canonical + "#".repeat(4096 - canonical.length - 1) + "\n").code).toBe(
      "not_canonical",
    );
  });

  test("decodeProjectYml checks the size before the encoding, then wants strict UTF-8", () => {
    const tooMany = new Uint8Array(4097).fill(0xff);
    expect(() => decodeProjectYml(tooMany)).toThrow(
      expect.objectContaining({ code: "file_too_large" }),
    );
    expect(() => decodeProjectYml(new Uint8Array([0x76, 0xff, 0x0a]))).toThrow(
      expect.objectContaining({ code: "not_yaml" }),
    );
    const bytes = new TextEncoder().encode(canonical);
    expect(decodeProjectYml(bytes)).toBe(canonical);
  });

  test("a byte order mark is kept by decoding, so parsing refuses it as not canonical", () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(canonical)]);
    expect(parseError(decodeProjectYml(withBom)).code).toBe("not_canonical");
  });
});
