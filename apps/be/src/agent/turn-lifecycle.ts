/**
 * One queued turn from start to end: claims it as running, chooses the session it resumes,
 * prepares and spawns Claude Code (once more, fresh, when the session is gone) and records the
 * outcome. Once the turn is claimed, any failure of a step is recorded as the turn's failure.
 */
import type { ClaudeTurnResult } from "@talkide/claude-cli";
import { importSafe } from "@talkide/prompts";
import { classifyTurnOutcome } from "@talkide/turn-engine";
import { sql } from "kysely";
import type { ProjectRow } from "../context/render-state.ts";
import type { TurnRow } from "../domain/turns.ts";
import { forwardAgentEvent } from "./agent-events.ts";
import {
  afterTurn,
  startCold,
  startupDigest,
  takeProcess,
  type TurnProcess,
} from "./claude-spawn.ts";
import {
  isPinnedToCurrentRelease,
  openSession,
  resetSession,
  type SessionRow,
} from "./session-pinning.ts";
import {
  type PreparedSpawn,
  prepareSpawn,
  probeProjectPorts,
  reportBusyPorts,
} from "./spawn-preparation.ts";
import { HeldEvents, type LiveTurn, type TurnEmitter } from "./turn-events.ts";
import { TurnFailure } from "./turn-failure.ts";
import { failTurn, recordOutcome } from "./turn-outcome.ts";
import type { TurnServices } from "./turn-services.ts";

/**
 * A turn its own message started on this instance: its enqueue took the job, so nothing can
 * have settled the turn since, and it is marked running with its process record (while the CLI
 * works) instead of by a claim before it. The project's row is the one the message's
 * membership check read moments ago.
 */
export interface StartedHere {
  readonly turn: TurnRow;
  readonly project: ProjectRow;
}

export async function runTurn(
  services: TurnServices,
  turnId: string,
  live: LiveTurn,
  signal: AbortSignal,
  startedHere?: StartedHere,
): Promise<void> {
  const { db, logger, claude } = services;
  const turn = startedHere?.turn ?? (await claim(services, turnId));
  if (turn === undefined) {
    // Already settled elsewhere (failed as abandoned, say): nothing of it may run now.
    services.hub.close(turnId);
    return;
  }
  // The session is read while the context is prepared: neither depends on the other.
  const sessionRead = openSession(db, turn.project_id);
  // Awaited in the try below; a failed read must not count as unhandled before that.
  sessionRead.catch(() => undefined);
  let session: SessionRow | undefined;
  // The steps before the spawn speak first into a holder: `turn.started` says how the
  // process starts, which needs the rendered context, and it must come first.
  const held = new HeldEvents();
  const progress = { started: false };
  const announce = (taken: TurnProcess | null): void => {
    progress.started = true;
    live.emit("turn.started", {
      turnId,
      resume: session !== undefined,
      // A turn that fails before any process is started reports "cold", as it always did.
      process: taken?.kind ?? "cold",
      ...(taken?.coldReason == null ? {} : { coldReason: taken.coldReason }),
    });
    held.releaseTo(live);
  };
  let taken: TurnProcess | null = null;
  let prepared: PreparedSpawn | null = null;
  try {
    // What the preparation reports follows a session reset, as when they ran one after the other.
    const preparationEvents = new HeldEvents();
    const preparing = prepareSpawn(services, turn, preparationEvents, startedHere?.project);
    preparing.catch(() => undefined);
    session = await sessionRead;
    // Claude Code keeps a session's first system prompt (Mara's agent prompt) and its agents
    // for good: a session started with other bytes cannot carry the current release.
    if (session !== undefined && !isPinnedToCurrentRelease(session, claude)) {
      const staleSession = session;
      session = undefined;
      await resetSession(services, turn, held, staleSession, "agent_changed");
    }
    prepared = await preparing;
    preparationEvents.releaseTo(held);
    const digest = await startupDigest(claude, prepared);
    taken = await takeProcess(services, turn, prepared.workspaceDir, session, digest);
    announce(taken);
    // The ports are probed while the CLI works, and the agent's events wait for their report:
    // the message goes first, the order of the events stays (context, ports, then the agent).
    const agentEvents = new HeldEvents();
    const running = runIn(services, turn, taken, agentEvents, signal);
    // The process record is written while the CLI works, too, and awaited before the outcome.
    // Until it commits, the orphan watchdog, which tracks the process's marker for as long as
    // the process lives, is what ends it should this instance die.
    const recorded = recordProcess(services, turn, taken, prepared);
    // Awaited below; until then a rejection must not count as unhandled.
    running.catch(() => undefined);
    recorded.catch(() => undefined);
    const probedPorts = probeProjectPorts(services, turn.project_id);
    logger.info(
      {
        turnId,
        projectId: turn.project_id,
        resume: session !== undefined,
        process: taken.kind,
        coldReason: taken.coldReason,
      },
      "turn started",
    );
    reportBusyPorts(await probedPorts, live);
    agentEvents.releaseTo(live);
    let result = await running;
    await recorded;
    let resumedFrom = session;
    let outcome = classifyTurnOutcome(result, {
      previousCumulativeCostUsd: session?.cumulative_cost_usd ?? null,
      resumedCold: session !== undefined && taken.kind === "cold",
    });
    if (session !== undefined && outcome.kind === "unknown_session") {
      // Claude Code no longer has the transcript (its state directory was cleared) or the
      // resume point: the conversation cannot continue, so this turn starts a new one.
      await resetSession(services, turn, live, session, "unknown_session");
      resumedFrom = undefined;
      // Its process has failed: it exits before the fresh one starts.
      afterTurn(services, turn, taken, { ok: false }, digest);
      taken = {
        ...(await startCold(services, turn, prepared.workspaceDir, undefined)),
        coldReason: "new_session",
      };
      await recordProcess(services, turn, taken, prepared);
      result = await runIn(services, turn, taken, live, signal);
      outcome = classifyTurnOutcome(result, {
        previousCumulativeCostUsd: null,
        resumedCold: false,
      });
    }
    await recordOutcome(services, turn, live, outcome, resumedFrom);
    // The kept process stands for what it read when it started: `digest`. Whatever changes on
    // disk later (an instruction file the agent wrote) makes the next turn's digest differ.
    afterTurn(services, turn, taken, result, digest);
  } catch (error) {
    if (taken !== null) afterTurn(services, turn, taken, { ok: false }, "");
    if (!progress.started) announce(null);
    const failure =
      error instanceof TurnFailure
        ? error
        : new TurnFailure(
            "internal_error",
            "The turn failed inside the service; see the service log.",
          );
    if (!(error instanceof TurnFailure))
      logger.error({ err: error, turnId }, "turn failed unexpectedly");
    await failTurn(services, turn, live, failure.code, failure.message, null, null, null, {
      // What the workspace check found stays on the record when the turn failed after it.
      ...(prepared === null
        ? {}
        : { workspace_instruction_files: JSON.stringify(prepared.instructionFiles) }),
    });
  }
}

/** A queued turn taken to run here; undefined when it was settled meanwhile (say, abandoned). */
function claim(services: TurnServices, turnId: string): Promise<TurnRow | undefined> {
  return services.db
    .updateTable("turns")
    .set({
      status: "running",
      started_at: sql<string>`clock_timestamp()`,
      demo_model: services.demoModel,
    })
    .where("id", "=", turnId)
    .where("status", "=", "queued")
    .returningAll()
    .executeTakeFirst();
}

/** The member's words as one message to the turn's process; its events go to the stream. */
function runIn(
  services: TurnServices,
  turn: TurnRow,
  taken: TurnProcess,
  live: TurnEmitter,
  signal: AbortSignal,
): Promise<ClaudeTurnResult> {
  return taken.process.runTurn({
    // Claude Code reads a file for every `@word` at a word start in a prompt, anywhere on the
    // server and past the tool permissions; the member's words reach Mara with `\@`
    // (README, "The member's message loads no file").
    prompt: importSafe(turn.prompt),
    timeoutMs: services.claude.timeoutMs,
    signal,
    onEvent: (event) => {
      forwardAgentEvent(event, live);
    },
  });
}

/**
 * How the turn's process started, and its marker: another instance that fails this turn (its
 * lease expired) finds the turn's leftover processes on this machine by it. The workspace's own
 * instruction files go in the same statement (one round trip fewer), and so does a turn started
 * here its `running` status (StartedHere): only from `queued`, since the statement may run after
 * a failure was recorded (on a server the two take different connections).
 */
async function recordProcess(
  services: TurnServices,
  turn: TurnRow,
  taken: TurnProcess,
  prepared: PreparedSpawn,
): Promise<void> {
  await services.db
    .updateTable("turns")
    .set({
      process: taken.kind,
      cold_reason: taken.coldReason,
      process_marker: taken.marker,
      workspace_instruction_files: JSON.stringify(prepared.instructionFiles),
      demo_model: services.demoModel,
      status: sql<TurnRow["status"]>`CASE WHEN status = 'queued' THEN 'running' ELSE status END`,
      started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
    })
    .where("id", "=", turn.id)
    .execute();
}
