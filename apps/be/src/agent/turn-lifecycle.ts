/**
 * The backend as a host of the turn pipeline (`runTurnPipeline` of @talkide/turn-engine): one
 * queued turn from its claim to its stored outcome. The backend's parts: the project's session
 * (resumed only when pinned to the current release of Mara's agent), the CLAUDE.md files it
 * renders, the turn record, and the turn's event stream, whose first event says how the
 * process started. Once the turn is claimed, any failure of a stage is the turn's failure.
 */
import { buildMemberMessage } from "@talkide/prompts";
import {
  engineDb,
  inspectWorkspace,
  runTurnPipeline,
  startRun,
  TurnFailure,
  type SessionRow,
  type TurnAttempt,
  type TurnContext,
  type TakenProcess,
  type TurnPipelineHost,
} from "@talkide/turn-engine";
import { sql } from "kysely";
import { ACTIVE_WRITER_PATH } from "../context/prepare.ts";
import type { ProjectRow } from "../context/render-state.ts";
import type { TurnRow } from "../domain/turns.ts";
import { forwardAgentEvent } from "./agent-events.ts";
import { projectQuarantineDir } from "./quarantine.ts";
import { coldStart, startupDigest } from "./claude-spawn.ts";
import { projectKey } from "./project-key.ts";
import { projectScope, releasePin, resetSession } from "./session-pinning.ts";
import {
  type PreparedSpawn,
  probeProjectPorts,
  reportBusyPorts,
  writeContext,
} from "./spawn-preparation.ts";
import { HeldEvents, type LiveTurn, type TurnEmitter } from "./turn-events.ts";
import { failTurn, recordOutcome, recordStopped, stopRequestedBy } from "./outcome-store.ts";
import type { TurnServices } from "./turn-services.ts";
import { userUsageKey } from "./usage-keys.ts";

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
  const turn = startedHere?.turn ?? (await claim(services, turnId));
  if (turn === undefined) {
    // Already settled elsewhere (failed as abandoned, say): nothing of it may run now.
    services.hub.close(turnId);
    return;
  }
  await runTurnPipeline(backendHost(services, turn, live, startedHere?.project), signal);
}

/** What the backend's context stage prepared: the rendered files, the workspace inspected. */
interface BackendContext extends TurnContext, Pick<PreparedSpawn, "rendered"> {
  /** The project's key at the LLM gateway. */
  readonly projectKey: string;
  /** What changed in our instruction files since the last turn (prepare.ts). */
  readonly changedSections: readonly string[];
}

/** An attempt of a backend turn: in the project's session, or (null) in a new one. */
interface BackendAttempt extends TurnAttempt<TurnEmitter> {
  readonly session: SessionRow | null;
  /** The CLI session it resumes (null: the CLI starts afresh). */
  readonly resumedFrom: string | null;
  /** What the workspace guard found: stored with the process record. */
  readonly instructionFiles: readonly string[];
  /** Why a resumed turn writes what it appends (the context's changed sections). */
  readonly changedSections: readonly string[];
}

/** The files the backend writes into the workspace itself: not reported as the agent's. */
const OURS = ["CLAUDE.md", ACTIVE_WRITER_PATH];

function backendHost(
  services: TurnServices,
  turn: TurnRow,
  live: LiveTurn,
  project: ProjectRow | undefined,
): TurnPipelineHost<TurnEmitter, BackendContext, BackendAttempt> {
  const { db, logger, claude } = services;
  // What a process reads at start is the same for the unknown-session restart: read once.
  const startup: { digest: Promise<string> | null } = { digest: null };
  /** Where this turn's guard moved instruction files to (null: nothing was moved). */
  const movedTo: { folder: string | null } = { folder: null };
  /** The writer's user at the gateway: their limits apply to the turn. Read once. */
  const writer: { userKey: Promise<string | null> | null } = { userKey: null };
  return {
    pool: services.warm,
    // The same object is the transcript ledger's owner when the outcome is stored.
    db: engineDb(db),
    events: { live, hold: () => new HeldEvents() },
    // Claude Code keeps a session's first system prompt (Mara's agent prompt) and its agents
    // for good: only a session started with the current release's bytes continues.
    session: { scope: projectScope(turn.project_id).scope, pin: releasePin(claude.pinned) },

    prepareContext: async (to) => {
      // The workspace check only reads the workspace and what lies above it, and none of the
      // files it looks for is one the context write touches: it starts as soon as the
      // project's row names the workspace, beside the render and the write.
      const inspection: { started: Promise<readonly string[]> | null } = { started: null };
      const inspect = (workspaceDir: string): Promise<readonly string[]> => {
        const started = inspectWorkspace(workspaceDir, claude.claudeConfigDir, OURS);
        // Awaited by the pipeline's guard; a failed render leaves it unawaited.
        started.catch(() => undefined);
        inspection.started = started;
        return started;
      };
      const written = await writeContext(services, turn, to, (dir) => void inspect(dir), project);
      return {
        ...written,
        claudeConfigDir: claude.claudeConfigDir,
        ours: OURS,
        inspected: inspection.started ?? inspect(written.workspaceDir),
        ...(claude.quarantineDir === undefined
          ? {}
          : { quarantineDir: projectQuarantineDir(claude.quarantineDir, turn.project_id) }),
      };
    },
    workspaceGuarded: (guarded, to) => {
      if (!guarded.ok) {
        if (guarded.code === "workspace_check_failed")
          logger.error({ err: guarded.error, turnId: turn.id }, "workspace check failed");
        return;
      }
      if (guarded.instructionFiles.length === 0) return;
      movedTo.folder = guarded.quarantinedTo;
      if (guarded.quarantinedTo !== null) {
        logger.warn(
          { turnId: turn.id, projectId: turn.project_id, files: guarded.instructionFiles.length },
          "moved instruction files the backend did not write out of the workspace",
        );
      }
      to.emit("workspace.instructions", {
        files: guarded.instructionFiles,
        message:
          guarded.quarantinedTo === null
            ? "The workspace holds instruction files the backend did not write; Claude Code loads them for this turn. Review or remove them."
            : "The workspace held instruction files the backend did not write; they were moved out of it before this turn and Claude Code does not load them. The project's owners find them under What Mara sees.",
      });
    },
    // Pinned elsewhere: a session started with other bytes cannot carry the current release.
    // Unknown: Claude Code no longer has the transcript (its state directory was cleared) or
    // the resume point, so the conversation cannot continue and this turn starts a new one.
    endSession: (session, end, to) =>
      resetSession(
        services,
        turn,
        to,
        session,
        end.reason === "unknown_session" ? "unknown_session" : "agent_changed",
      ),
    announce: (taken, session) => {
      const resume = session !== null;
      live.emit("turn.started", {
        turnId: turn.id,
        resume,
        // A turn that fails before any process is started reports "cold", as it always did.
        process: taken?.kind ?? "cold",
        ...(taken?.coldReason == null ? {} : { coldReason: taken.coldReason }),
      });
      if (taken === null) return;
      // Per-turn lines at debug, as requests are: the start banner stays in view.
      logger.debug(
        {
          turnId: turn.id,
          projectId: turn.project_id,
          resume,
          process: taken.kind,
          coldReason: taken.coldReason,
        },
        "turn started",
      );
    },

    beginAttempt: async (session, point, context, instructionFiles) => {
      writer.userKey ??= writerUserKey(services, turn);
      const userKey = await writer.userKey;
      // Nothing is spawned for a turn over a spend or token limit: it fails with the
      // gateway's words (which limit, who can raise it); its message stays for a retry.
      const reached = await services.gateway.checkLimits({
        projectKey: context.projectKey,
        userKey,
      });
      if (reached !== null) throw new TurnFailure("usage_limit_reached", reached.message);
      const digest =
        startup.digest ?? startupDigest(claude, { ...context, instructionFiles }, movedTo.folder);
      startup.digest = digest;
      return {
        session,
        resumedFrom: point?.id ?? null,
        instructionFiles,
        turnId: turn.id,
        key: projectKey(turn.project_id),
        sessionKey: session?.id ?? null,
        // A turn's cost is the gateway's exact figure (outcome-store.ts), not the difference of
        // the CLI's running totals: none is kept.
        previousCumulativeCostUsd: null,
        userKey,
        changedSections: context.changedSections,
        cold: coldStart(services, context.workspaceDir, point, context.projectKey),
        digest: () => digest,
        // The record is written while the CLI works, and awaited before the outcome. Until it
        // commits, the orphan watchdog, which tracks the process's marker for as long as the
        // process lives, is what ends it should this instance die.
        recordsWhileRunning: true,
        // The ports are probed while the CLI works (milliseconds of CPU reading the kernel's
        // socket tables); their report comes before the agent's events.
        whileRunning: async (to: TurnEmitter) => {
          reportBusyPorts(await probeProjectPorts(services, turn.project_id), to);
        },
      };
    },
    recordProcess: (attempt, taken) => recordProcess(services, turn, attempt, taken),
    sendMessage: (_attempt, taken, to, signal) =>
      taken.process.runTurn({
        // One fixed first line, then the member's words with every `@` as `\@`: Claude Code
        // reads a file for every `@word` at a word start (README, "The member's message loads
        // no file"), and derives its billing header, part of every cache key, from a session's
        // first prompt (spec/member-message.md).
        prompt: buildMemberMessage(turn.prompt),
        timeoutMs: claude.timeoutMs,
        signal,
        onEvent: (event) => {
          forwardAgentEvent(event, to);
        },
      }),
    finish: async (end) => {
      if (end.kind === "error") {
        await failed(end.error, end.progress.instructionFiles);
        return;
      }
      const { attempt, outcome, transcript } = end;
      // A member stopped it: the process the stop ended is no failure of the turn's. A turn
      // aborted while the service stops fails (`interrupted` is recorded as a failure here).
      if (outcome.kind !== "succeeded") {
        const stoppedBy = await stopRequestedBy(services, turn.id);
        if (stoppedBy !== null) {
          await recordStopped(services, turn, live, stoppedBy, attempt.session);
          return;
        }
      }
      await recordOutcome(
        services,
        turn,
        live,
        outcome,
        attempt.session ?? undefined,
        transcript,
        attempt.changedSections,
      );
    },
  };

  async function failed(error: unknown, instructionFiles: readonly string[] | null) {
    // A member stopped it: the ended process is no failure of the turn's.
    const stoppedBy = await stopRequestedBy(services, turn.id);
    if (stoppedBy !== null) {
      await recordStopped(services, turn, live, stoppedBy);
      return;
    }
    const failure =
      error instanceof TurnFailure
        ? error
        : new TurnFailure(
            "internal_error",
            "The turn failed inside the service; see the service log.",
          );
    if (!(error instanceof TurnFailure))
      logger.error({ err: error, turnId: turn.id }, "turn failed unexpectedly");
    await failTurn(services, turn, live, failure.code, failure.message, null, {
      // What the workspace check found stays on the record when the turn failed after it.
      ...(instructionFiles === null
        ? {}
        : { workspace_instruction_files: JSON.stringify(instructionFiles) }),
    });
  }
}

/** The gateway's key of the user who wrote the turn's message (null: the member row is gone). */
async function writerUserKey(services: TurnServices, turn: TurnRow): Promise<string | null> {
  const member = await services.db
    .selectFrom("members")
    .select("user_id")
    .where("id", "=", turn.member_id)
    .executeTakeFirst();
  return member === undefined ? null : userUsageKey(member.user_id);
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

/**
 * The attempt's run starts in the engine's record (the session it runs in, the CLI session it
 * resumes, how its process started, and its marker: another instance that fails this turn, its
 * lease expired, finds the turn's leftover processes on this machine by it); a second attempt,
 * after an unknown session, starts the same run again. Beside it, the turn's own record: the
 * workspace's instruction files, and for a turn started here its `running` status
 * (StartedHere), only from `queued`, since the statement may run after a failure was recorded
 * (on a server the two take different connections). One statement for both, written while the
 * CLI works.
 */
async function recordProcess(
  services: TurnServices,
  turn: TurnRow,
  attempt: BackendAttempt,
  taken: TakenProcess,
): Promise<void> {
  const recorded = services.db
    .updateTable("turns")
    .set({
      workspace_instruction_files: JSON.stringify(attempt.instructionFiles),
      demo_model: services.demoModel,
      status: sql<TurnRow["status"]>`CASE WHEN status = 'queued' THEN 'running' ELSE status END`,
      started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
    })
    .where("id", "=", turn.id);
  await startRun(
    engineDb(services.db),
    {
      turnId: turn.id,
      owner: projectKey(turn.project_id),
      sessionId: attempt.session?.id ?? null,
      resumedFrom: attempt.resumedFrom,
      process: { kind: taken.kind, coldReason: taken.coldReason, marker: taken.marker },
    },
    { steps: () => sql`recorded_turn AS (${recorded})` },
  );
}
