/**
 * When the selected project is gone from the list this browser may see (you were removed, or
 * left it in another tab), which project to show instead and what to tell the person.
 */
export interface ProjectRef {
  readonly id: number;
  readonly name: string;
}

export interface AccessLoss {
  /** "You no longer have access to <name>." */
  readonly notice: string;
  /** The project to show now: the first one left, or null (then "Create a project"). */
  readonly nextId: number | null;
}

export function lostAccessNotice(name: string): string {
  return `You no longer have access to ${name}.`;
}

/** Null while the selected project is still there (or none was selected). */
export function accessLossOf(
  selected: ProjectRef | null,
  visible: readonly ProjectRef[],
): AccessLoss | null {
  if (selected === null || visible.some((p) => p.id === selected.id)) return null;
  return { notice: lostAccessNotice(selected.name), nextId: visible[0]?.id ?? null };
}

/** The project id a path of the API is about (`/v1/projects/7/turns` → 7), or null. */
export function projectIdOfPath(path: string): number | null {
  const match = /^\/v1\/projects\/(\d+)(?:[/?]|$)/.exec(path);
  return match === null ? null : Number(match[1]);
}
