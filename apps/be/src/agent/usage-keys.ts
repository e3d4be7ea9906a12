/**
 * How the backend names a project and a member's user to its LLM gateway, whose rows (spend,
 * tokens, limits) are summed by these keys. A project's id alone would not do: ids are reused
 * once a project is deleted (they derive the ports), and the new project must not inherit the
 * old one's spend. Its creation time makes the key the project's own.
 */
export function projectUsageKey(project: {
  readonly id: number;
  readonly created_at: string;
}): string {
  return `project:${project.id}:${project.created_at}`;
}

/** A user's key: their account's id, the same in every project (the user limits span them). */
export function userUsageKey(userId: string): string {
  return `user:${userId}`;
}
