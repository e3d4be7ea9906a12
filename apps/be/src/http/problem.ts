import type { z } from "zod";
import { ApiError } from "@talkide/service-kit";

/** Parses a request body with a zod schema; a mismatch names the fields, never their values. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? null);
  if (result.success) return result.data;
  throw new ApiError(
    400,
    "invalid_body",
    "The request body does not have the expected shape; see `errors` for each field.",
    {
      title: "Invalid request body",
      extensions: {
        errors: result.error.issues.map((issue) => ({
          path: issue.path.map(String).join("."),
          message: issue.message,
        })),
      },
    },
  );
}
