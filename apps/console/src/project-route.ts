/**
 * A project's address in the console: `/projects/<id>`, so a reload, Back and a shared link
 * land on the same project. The backend serves the console's page for these paths.
 */
const PROJECT_PATH = /^\/projects\/(\d{1,16})\/?$/;

/** The project id an address names, or null for any other path. */
export function projectIdOfRoute(pathname: string): number | null {
  const match = PROJECT_PATH.exec(pathname);
  if (match?.[1] === undefined) return null;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** The address of a project (null: the console's start, `/`). */
export function routeOfProject(projectId: number | null): string {
  return projectId === null ? "/" : `/projects/${projectId}`;
}
