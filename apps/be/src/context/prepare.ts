import { rm } from "node:fs/promises";
import { join } from "node:path";
import { changedInstructionReminderBytes } from "@talkide/claude-cli";
import { renderProjectYml } from "@talkide/ports";
import { renderContextFiles } from "@talkide/renderer";
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import { notFound } from "../errors.ts";
import {
  buildRenderInput,
  checkRenderState,
  loadMembersWithUsers,
  loadProjectRow,
  type ProjectRow,
} from "./render-state.ts";
import { changedSections } from "./changed-sections.ts";
import { writeFilesIfChanged, type WriteHooks } from "./write-if-changed.ts";

export type ContextLayout = "split" | "single";

/** Paths relative to the project's workspace directory. */
export const ACTIVE_WRITER_PATH = ".talkide/active-writer.md";
export const PROJECT_YML_PATH = ".talkide/project.yml";

export interface ContextFile {
  readonly path: string;
  readonly content: string;
}

export interface RenderedContext {
  readonly project: ProjectRow;
  /** In write order: CLAUDE.md (and the active-writer file) first, project.yml last. */
  readonly files: readonly ContextFile[];
}

/**
 * Renders, without writing, every file a spawn for this project and writer would get:
 * state from the database, through the privacy projection, validated, rendered.
 */
export async function renderContext(
  db: Kysely<DatabaseSchema>,
  options: {
    projectId: number;
    activeMemberId: string;
    layout: ContextLayout;
    /** Told the project's workspace as soon as its row is read, before the render. */
    onWorkspace?: (workspaceDir: string) => void;
    /**
     * The project's row when the caller read it moments ago (a message that starts its turn
     * on the instance that received it): one read fewer. The roster is read either way.
     */
    project?: ProjectRow;
  },
): Promise<RenderedContext> {
  // Two reads side by side (on a server, two connections): the roster does not depend on
  // the project's row, and a project that is gone makes its roster empty, never wrong.
  const membersRead = loadMembersWithUsers(db, options.projectId);
  // Awaited below; a missing project must not leave its rejection unhandled.
  membersRead.catch(() => undefined);
  const project = options.project ?? (await loadProjectRow(db, options.projectId));
  if (project === undefined) throw notFound("project_not_found", "Project");
  options.onWorkspace?.(project.workspace_dir);
  const members = await membersRead;
  const state = checkRenderState(buildRenderInput(project, members, options.activeMemberId));
  const files: ContextFile[] = renderContextFiles(state, { layout: options.layout }).map((f) => ({
    path: f.path,
    content: f.content,
  }));
  files.push({ path: PROJECT_YML_PATH, content: renderProjectYml(project.id) });
  return { project, files };
}

export interface PreparedFile {
  readonly path: string;
  readonly changed: boolean;
  /** UTF-8 bytes of the file as written. */
  readonly bytes: number;
  /** CLAUDE.md and the files it imports: what Claude Code reads as instructions. */
  readonly instruction: boolean;
}

export interface PreparedContext {
  readonly project: ProjectRow;
  readonly files: readonly PreparedFile[];
  /**
   * What the changed instruction files cost at the wire if this turn resumes a session:
   * Claude Code 2.1.330 re-sends each changed file whole in one reminder (WIRE-NOTES.md of
   * @talkide/claude-cli). 0 when none changed. A fresh session gets every file anyway.
   */
  readonly resumeReminderBytes: number;
  /**
   * What changed in our instruction files since the last turn wrote them, in a member's words
   * ("the active writer changed", …; changed-sections.ts): why a resumed turn writes the
   * reminder it appends. Empty when nothing changed or a file is new.
   */
  readonly changedSections: readonly string[];
  /** Each rendered file's bytes, for the warm-process fingerprint; never sent in an event. */
  readonly contents: ReadonlyArray<{ readonly path: string; readonly content: string }>;
}

/** project.yml is read by tools and people, never imported as instructions. */
export function isInstructionFile(path: string): boolean {
  return path !== PROJECT_YML_PATH;
}

/**
 * Prepare-spawn: render the context and write each file that changed, atomically. Files
 * whose bytes are already on disk are not touched (their mtime stays), which is what lets
 * Claude Code see "no change" on a resumed turn.
 */
export async function prepareSpawnContext(
  db: Kysely<DatabaseSchema>,
  options: {
    projectId: number;
    activeMemberId: string;
    layout: ContextLayout;
    hooks?: WriteHooks;
    /** As for renderContext: the workspace, before anything is rendered or written. */
    onWorkspace?: (workspaceDir: string) => void;
    /** As for renderContext: the project's row, read moments ago. */
    project?: ProjectRow;
  },
): Promise<PreparedContext> {
  const { project, files } = await renderContext(db, options);
  const written: PreparedFile[] = [];
  const changedInstructions: Array<{ absolutePath: string; content: string }> = [];
  const sections: string[] = [];
  const onDisk = files.map((file) => ({
    path: join(project.workspace_dir, file.path),
    content: file.content,
  }));
  const changes = await writeFilesIfChanged(onDisk, options.hooks);
  for (const [index, file] of files.entries()) {
    const absolutePath = join(project.workspace_dir, file.path);
    const change = changes[index];
    const changed = change?.written === true;
    const instruction = isInstructionFile(file.path);
    written.push({
      path: file.path,
      changed,
      bytes: Buffer.byteLength(file.content, "utf8"),
      instruction,
    });
    if (changed && instruction) {
      changedInstructions.push({ absolutePath, content: file.content });
      const before = change.previous?.toString("utf8") ?? null;
      for (const phrase of changedSections(before, file.content)) {
        if (!sections.includes(phrase)) sections.push(phrase);
      }
    }
  }
  if (options.layout === "single") {
    // Left over from the split layout: CLAUDE.md no longer imports it, so it would only
    // confuse whoever reads the workspace.
    await rm(join(project.workspace_dir, ACTIVE_WRITER_PATH), { force: true });
  }
  return {
    project,
    files: written,
    resumeReminderBytes: changedInstructionReminderBytes(changedInstructions),
    changedSections: sections,
    contents: files.map((file) => ({ path: file.path, content: file.content })),
  };
}
