// Lint fixture (never imported): every statement below drops a promise on the floor.
import { writeFile } from "node:fs/promises";

export async function persist(path: string): Promise<void> {
  await writeFile(path, "x");
}

export function fireAndForget(path: string): void {
  writeFile(path, "from a library's types");
  persist(path);
}
