import { probePorts, type PortProbe } from "../probe.ts";
import { EXIT, type ExitCode } from "./exit-codes.ts";
import { shellQuote, type CliIo } from "./io.ts";
import { loadProjectFile } from "./project-file.ts";
import { reportBadFile } from "./report-bad-file.ts";
import { describe, type PortTarget } from "./stop-holder.ts";

export interface CheckOptions {
  readonly projectDir: string;
  /** Set when the caller named the directory, so the suggested command names it too. */
  readonly projectDirGiven: boolean;
  readonly json: boolean;
}

const TARGETS: readonly PortTarget[] = ["be", "fe"];

/** `check`: are this project's ports free? Busy ones are reported with their holder. */
export async function check(io: CliIo, options: CheckOptions): Promise<ExitCode> {
  const loaded = await loadProjectFile(options.projectDir);
  if (!loaded.ok) return reportBadFile(io, loaded.file, loaded.error, options.json);
  const { values } = loaded;
  const [be, fe] = await probePorts([values.ports.be, values.ports.fe]);
  if (be === undefined || fe === undefined) throw new Error("probePorts answered too few ports");
  const probes = { be, fe };
  const busy = TARGETS.filter((target) => probes[target].state === "busy");
  const instruction =
    busy.length === 0
      ? null
      : busyInstruction(probes, busy, options.projectDirGiven ? options.projectDir : null);

  if (options.json) {
    const ports = Object.fromEntries(
      TARGETS.map((target) => [target, { ...probes[target], url: values.urls[target] }]),
    );
    io.out(
      `${JSON.stringify({ projectId: values.project.id, allFree: busy.length === 0, ports, instruction })}\n`,
    );
  } else {
    const lines = TARGETS.map(
      (target) => `${target.toUpperCase()} port ${describeProbe(probes[target])}`,
    );
    if (instruction !== null) lines.push(instruction);
    io.out(`${lines.join("\n")}\n`);
  }
  return busy.length === 0 ? EXIT.ok : EXIT.busy;
}

function describeProbe(probe: PortProbe): string {
  if (probe.state === "free") return `${probe.port}: free`;
  const holder = probe.holder === null ? "a process this user cannot see" : describe(probe.holder);
  return `${probe.port}: busy, held by ${holder}`;
}

/** The line an agent acts on: ask the user, never move to another port. */
function busyInstruction(
  probes: Readonly<Record<PortTarget, PortProbe>>,
  busy: readonly PortTarget[],
  projectDir: string | null,
): string {
  const names = busy
    .map((target) => `${target.toUpperCase()} port ${probes[target].port}`)
    .join(" and ");
  const stoppable = busy.filter((target) => {
    const probe = probes[target];
    return probe.state === "busy" && probe.holder !== null;
  });
  const dirArgument = projectDir === null ? "" : ` --project-dir ${shellQuote(projectDir)}`;
  const stopHint =
    stoppable.length === 0
      ? ""
      : ` If the user agrees, ${stoppable.map((target) => `\`talkide-ports stop ${target}${dirArgument}\``).join(" and ")} stops the holder.`;
  return (
    `This project's ${names} ${busy.length === 1 ? "is" : "are"} busy. ` +
    `Ask the user what to do; never pick another port on your own.${stopHint}`
  );
}
