import { describe, expect } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { derivePorts, PLATFORM_PORTS, PROJECT_ID_RANGE } from "./derive.ts";
import { PortsError } from "./errors.ts";

const ALL_IDS = Array.from({ length: 999 }, (_, index) => index + 1);

function expectInvalidId(value: unknown): void {
  let thrown: unknown;
  try {
    derivePorts(value as number);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(PortsError);
  expect(thrown).toMatchObject({ code: "invalid_project_id", path: "projectId" });
}

describe("derivePorts over the whole id domain 1–999", () => {
  const all = ALL_IDS.map((id) => ({ id, ...derivePorts(id) }));

  test("follows the contract's formula: BE = 8090 + id, FE = 5200 + id", () => {
    for (const { id, be, fe } of all) {
      expect(be).toBe(8090 + id);
      expect(fe).toBe(5200 + id);
    }
  });

  test("no two projects share a port, whether BE or FE", () => {
    const ports = all.flatMap(({ be, fe }) => [be, fe]);
    expect(new Set(ports).size).toBe(2 * ALL_IDS.length);
  });

  test("no project gets a platform port", () => {
    const platform = new Set<number>([PLATFORM_PORTS.be, PLATFORM_PORTS.fe]);
    for (const { be, fe } of all) {
      expect(platform.has(be)).toBe(false);
      expect(platform.has(fe)).toBe(false);
    }
  });

  test("every port is a real TCP port, 1–65535, and the ranges are the documented ones", () => {
    const bes = all.map(({ be }) => be);
    const fes = all.map(({ fe }) => fe);
    expect([Math.min(...bes), Math.max(...bes)]).toEqual([8091, 9089]);
    expect([Math.min(...fes), Math.max(...fes)]).toEqual([5201, 6199]);
    for (const port of [...bes, ...fes]) {
      expect(Number.isInteger(port) && port >= 1 && port <= 65535).toBe(true);
    }
  });

  test("the range constant is 1–999", () => {
    expect(PROJECT_ID_RANGE).toEqual({ min: 1, max: 999 });
    expect(PLATFORM_PORTS).toEqual({ be: 9090, fe: 5200 });
  });
});

describe("derivePorts outside the domain", () => {
  test.prop([fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 1000 }))], { numRuns: 1000 })(
    "any integer outside 1–999 is a typed error, never a port",
    (id) => {
      expectInvalidId(id);
    },
  );

  test.prop([fc.double({ noNaN: false }).filter((value) => !Number.isInteger(value))], {
    numRuns: 1000,
  })("any non-integer number is a typed error", (value) => {
    expectInvalidId(value);
  });

  test("the values where the bare formula would collide are refused", () => {
    // 0: FE 5200 (platform FE); 1000: BE 9090 (platform BE);
    // 2891: FE 8091 = BE of project 1; 3890: FE 9090 (platform BE).
    for (const id of [0, 1000, 2891, 3890]) expectInvalidId(id);
  });

  test("values that are not numbers are refused at run time too", () => {
    for (const value of ["7", null, undefined, 7n, [7], { id: 7 }, Number.POSITIVE_INFINITY]) {
      expectInvalidId(value);
    }
  });
});
