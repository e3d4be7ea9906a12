/**
 * The backend's own stages of a turn: render and write the context before Claude Code is
 * spawned, and the probe of the project's ports with its report, which runs while the CLI works.
 */
import { derivePorts, type PortProbe, probePorts } from "@talkide/ports";
import { ApiError } from "@talkide/service-kit";
import { TurnFailure } from "@talkide/turn-engine";
import { prepareSpawnContext } from "../context/prepare.ts";
import type { ProjectRow } from "../context/render-state.ts";
import type { TurnRow } from "../domain/turns.ts";
import type { TurnEmitter } from "./turn-events.ts";
import { projectUsageKey } from "./usage-keys.ts";
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
 * The backend's context stage: render and write the context (a failure here means nothing was
 * spawned); `onWorkspace` hears the workspace as soon as the project's row names it.
 */
export async function writeContext(
  services: TurnServices,
  turn: TurnRow,
  live: TurnEmitter,
  onWorkspace: (workspaceDir: string) => void,
  project: ProjectRow | undefined,
): Promise<
  Pick<PreparedSpawn, "workspaceDir" | "rendered"> & {
    readonly projectKey: string;
    /** What changed in our instruction files since the last turn, in a member's words. */
    readonly changedSections: readonly string[];
  }
> {
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
    return {
      workspaceDir: prepared.project.workspace_dir,
      rendered: prepared.contents,
      projectKey: projectUsageKey(prepared.project),
      changedSections: prepared.changedSections,
    };
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
