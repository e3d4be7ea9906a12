import { test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { parseRenderState } from "../parse.ts";
import { renderClaudeMd } from "../render.ts";
import { validStateArb } from "./arbitraries.ts";
import {
  createHandlebarsRenderer,
  createLiquidRenderer,
  renderByConcatenation,
} from "./equivalent-templates.ts";

const handlebars = createHandlebarsRenderer();
const liquid = createLiquidRenderer();

describe("the benchmark's equivalent templates", () => {
  test.prop([validStateArb()], { numRuns: 200 })(
    "give the renderer's bytes exactly",
    (generated) => {
      const result = parseRenderState(generated.state);
      if (!result.ok) throw new Error(`generated state refused: ${result.error.code}`);
      const expected = renderClaudeMd(result.state);
      expect(handlebars(result.state)).toBe(expected);
      expect(liquid(result.state)).toBe(expected);
      expect(renderByConcatenation(result.state)).toBe(expected);
    },
  );
});
