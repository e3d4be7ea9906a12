/**
 * What a project is known by in the turn engine and its warm pool: its sessions' scope and
 * owner (one session per project), its runs' owner, and its kept process's key. Deleting the
 * project deletes its sessions and runs by it; migrations 0017 and 0018 wrote the same string.
 */
export function projectKey(projectId: number): string {
  return `project:${projectId}`;
}
