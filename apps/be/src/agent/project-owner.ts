/**
 * What the turn engine keeps a project's sessions and runs under (their `owner`, the same as
 * the project's warm pool key): deleting the project deletes them by it. Migrations 0017 and
 * 0018 wrote the same for the sessions and runs before them.
 */
export function projectOwner(projectId: number): string {
  return `project:${projectId}`;
}
