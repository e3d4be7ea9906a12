import type { z } from "zod";
import { ApiError } from "./api-error.ts";

/** Parses a query string, body or path parameters; a mismatch is a 400 with a stable code. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: "invalid_query" | "invalid_body" | "invalid_params",
): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  throw new ApiError(400, code, `${path === "" ? "input" : path}: ${issue?.message ?? "invalid"}`, {
    path,
  });
}
