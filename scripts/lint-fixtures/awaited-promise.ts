// Lint fixture (never imported): the same calls, handled correctly.
import { writeFile } from "node:fs/promises";

export async function persist(path: string): Promise<void> {
  await writeFile(path, "x");
}

export async function handled(path: string): Promise<void> {
  await writeFile(path, "awaited");
  void persist(path).catch(() => undefined);
}
