/**
 * Everything a turn does before Claude Code is spawned: render and write the context and check
 * the workspace's isolation (a failure here means nothing was spawned); and the probe of the
 * project's ports with its report, which the turn runs while the CLI works.
 */
import { derivePorts, type PortProbe, probePorts } from "@talkide/ports";
import { ApiError } from "@talkide/service-kit";
import { guardWorkspace } from "@talkide/turn-engine";
import { ACTIVE_WRITER_PATH, prepareSpawnContext } from "../context/prepare.ts";
import type { ProjectRow } from "../context/render-state.ts";
import type { TurnRow } from "../domain/turns.ts";
import { HeldEvents, type TurnEmitter } from "./turn-events.ts";
import { TurnFailure } from "./turn-failure.ts";
import type { TurnServices } from "./turn-services.ts";

/** What a prepared spawn starts from: where Claude Code runs and what it reads at start. */
export interface PreparedSpawn {
  readonly workspaceDir: string;
  /** The files the backend rendered, with their bytes. */
  readonly rendered: ReadonlyArray<{ readonly path: string; readonly content: string }>;
  /** Instruction files inside the workspace the backend did not write (relative paths). */
  readonly instructionFiles: readonly string[];
}

/** The project's derived ports as probed, in a fixed order (be, fe). */
export type ProbedPorts = ReadonlyArray<{
  readonly service: "be" | "fe";
  readonly probe: PortProbe;
}>;

/**
 * Prepares the turn's spawn: context written and workspace checked. The project's ports are
 * probed separately (`probeProjectPorts`): nothing the agent reads depends on them.
 */
export async function prepareSpawn(
  services: TurnServices,
  turn: TurnRow,
  live: TurnEmitter,
  /** The project's row, when the turn's message brought it (see StartedHere). */
  project?: ProjectRow,
): Promise<PreparedSpawn> {
  // The workspace check only reads the workspace and what lies above it, and none of the
  // files it looks for is one the context write touches: it runs side by side with the render
  // and the write, from the moment the project's row names the workspace. What it reports
  // still follows `context.written`.
  const check: { running: Promise<readonly string[]> | null } = { running: null };
  const checkEvents = new HeldEvents();
  const startCheck = (workspaceDir: string): Promise<readonly string[]> => {
    const running = guard(services, turn, workspaceDir, checkEvents);
    check.running = running;
    // Awaited below once the context is written; a failed write leaves it unawaited.
    running.catch(() => undefined);
    return running;
  };
  const { workspaceDir, rendered } = await writeContext(
    services,
    turn,
    live,
    (dir) => {
      void startCheck(dir);
    },
    project,
  );
  const instructionFiles = await (check.running ?? startCheck(workspaceDir));
  checkEvents.releaseTo(live);
  return { workspaceDir, rendered, instructionFiles };
}

/** Render and write the context; a failure here means nothing was spawned. */
async function writeContext(
  services: TurnServices,
  turn: TurnRow,
  live: TurnEmitter,
  onWorkspace: (workspaceDir: string) => void,
  project: ProjectRow | undefined,
): Promise<Pick<PreparedSpawn, "workspaceDir" | "rendered">> {
  try {
    const prepared = await prepareSpawnContext(services.db, {
      projectId: turn.project_id,
      activeMemberId: turn.member_id,
      layout: services.layout,
      onWorkspace,
      ...(project === undefined ? {} : { project }),
      ...(services.writeHooks === undefined ? {} : { hooks: services.writeHooks }),
    });
    live.emit("context.written", {
      layout: services.layout,
      files: prepared.files,
      resumeReminderBytes: prepared.resumeReminderBytes,
    });
    return { workspaceDir: prepared.project.workspace_dir, rendered: prepared.contents };
  } catch (error) {
    if (error instanceof ApiError) {
      throw new TurnFailure(
        "context_invalid",
        `The project's context cannot be rendered (${error.code}: ${error.message}) Fix the project or member data and send the message again.`,
      );
    }
    const code = (error as NodeJS.ErrnoException).code;
    services.logger.error({ err: error, turnId: turn.id }, "context write failed");
    throw new TurnFailure(
      "context_write_failed",
      `The context files could not be written${code === undefined ? "" : ` (${code})`}; nothing was spawned. Check that the workspace directory is writable.`,
    );
  }
}

/**
 * Isolation before the spawn (`guardWorkspace` of @talkide/turn-engine): a breach fails the
 * turn without spawning; instruction files the agent wrote inside the workspace go into an
 * event (and into the turn record with its process, see turn-lifecycle.ts).
 */
async function guard(
  services: TurnServices,
  turn: TurnRow,
  workspaceDir: string,
  live: TurnEmitter,
): Promise<readonly string[]> {
  const guarded = await guardWorkspace({
    workspaceDir,
    claudeConfigDir: services.claude.claudeConfigDir,
    // The files the backend writes itself are not reported as the agent's.
    ours: ["CLAUDE.md", ACTIVE_WRITER_PATH],
  });
  if (!guarded.ok) {
    if (guarded.code === "workspace_check_failed")
      services.logger.error({ err: guarded.error, turnId: turn.id }, "workspace check failed");
    throw new TurnFailure(guarded.code, guarded.message);
  }
  if (guarded.instructionFiles.length > 0) {
    live.emit("workspace.instructions", {
      files: guarded.instructionFiles,
      message:
        "The workspace holds instruction files the backend did not write; Claude Code loads them for this turn. Review or remove them.",
    });
  }
  return guarded.instructionFiles;
}

/**
 * The project's derived ports, probed now; a failed probe is logged and reports nothing. The
 * probe reads the kernel's socket tables, milliseconds of CPU however few sockets there are,
 * so a turn runs it once its message is on its way (turn-lifecycle.ts).
 */
export async function probeProjectPorts(
  services: TurnServices,
  projectId: number,
): Promise<ProbedPorts> {
  const ports = derivePorts(projectId);
  try {
    const [be, fe] = await probePorts([ports.be, ports.fe]);
    return [
      ...(be === undefined ? [] : [{ service: "be" as const, probe: be }]),
      ...(fe === undefined ? [] : [{ service: "fe" as const, probe: fe }]),
    ];
  } catch (error) {
    services.logger.warn({ err: error, ports }, "port probe failed");
    return [];
  }
}

/** A busy derived port is reported, never worked around: the user decides what to do. */
export function reportBusyPorts(probes: ProbedPorts, live: TurnEmitter): void {
  for (const { service, probe } of probes) {
    if (probe.state !== "busy") continue;
    live.emit("port.busy", {
      service,
      port: probe.port,
      holder: probe.holder,
      message: `Port ${probe.port} (the project's ${service.toUpperCase()} port, from .talkide/project.yml) is in use${
        probe.holder === null ? "" : ` by process ${probe.holder.pid}`
      }. Nothing was changed: free the port or tell Mara how to proceed.`,
    });
  }
}
