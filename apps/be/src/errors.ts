import { ApiError } from "@talkide/service-kit";

/**
 * The one refusal for a project, member or turn the caller cannot see: it does not exist, or
 * the caller is not a member of its project (which must look the same, so ids reveal nothing).
 */
export const notFound = (code: string, what: string): ApiError =>
  new ApiError(
    404,
    code,
    `No ${what.toLowerCase()} with this id exists among the projects you are a member of.`,
    { title: `${what} not found` },
  );
