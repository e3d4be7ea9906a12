/**
 * One queued turn from start to end: claims it as running, chooses the session it resumes,
 * prepares and spawns Claude Code (once more, fresh, when the session is gone) and records the
 * outcome. Once the turn is claimed, any failure of a step is recorded as the turn's failure.
 */
import { isUnknownSessionFailure } from "@talkide/claude-cli";
import { sql } from "kysely";
import { spawnClaude } from "./claude-spawn.ts";
import { isPinnedToCurrentRelease, openSession, resetSession } from "./session-pinning.ts";
import { materialiseSessionTranscript } from "./session-transcripts.ts";
import { prepareSpawn } from "./spawn-preparation.ts";
import type { LiveTurn } from "./turn-events.ts";
import { TurnFailure } from "./turn-failure.ts";
import { failTurn, recordOutcome } from "./turn-outcome.ts";
import type { TurnServices } from "./turn-services.ts";

export async function runTurn(
  services: TurnServices,
  turnId: string,
  live: LiveTurn,
  signal: AbortSignal,
): Promise<void> {
  const { db, logger, claude } = services;
  const turn = await db
    .updateTable("turns")
    .set({ status: "running", started_at: sql<string>`clock_timestamp()` })
    .where("id", "=", turnId)
    .where("status", "=", "queued")
    .returningAll()
    .executeTakeFirst();
  if (turn === undefined) {
    // Already settled elsewhere (failed as abandoned, say): nothing of it may run now.
    services.hub.close(turnId);
    return;
  }
  let session = await openSession(db, turn.project_id);
  // Claude Code keeps a session's first system prompt (Mara's agent prompt) and its agents
  // for good: a session started with other bytes cannot carry the current release.
  const stale = session !== undefined && !isPinnedToCurrentRelease(session, claude);
  const staleSession = stale ? session : undefined;
  if (stale) session = undefined;
  // Every turn spawns a new CLI process today ("cold"); a later kept-alive process will
  // report "warm" here, so clients can tell the two apart from the start.
  live.emit("turn.started", { turnId, resume: session !== undefined, process: "cold" });
  logger.info(
    { turnId, projectId: turn.project_id, resume: session !== undefined },
    "turn started",
  );

  // From here on the turn may have processes: they must not outlive this instance.
  services.watchdog.track(turnId);
  try {
    if (staleSession !== undefined) {
      await resetSession(services, turn, live, staleSession, "agent_changed");
    }
    const workspaceDir = await prepareSpawn(services, turn, live);
    // Whichever instance ran the session's last turn, its stored transcript is what resumes.
    if (session !== undefined)
      await materialiseSessionTranscript(db, claude.claudeConfigDir, session);
    let result = await spawnClaude(claude, turn, workspaceDir, session, live, signal);
    let resumedFrom = session;
    if (session !== undefined && isUnknownSessionFailure(result)) {
      // Claude Code no longer has the transcript (its state directory was cleared) or the
      // resume point: the conversation cannot continue, so this turn starts a new one.
      await resetSession(services, turn, live, session, "unknown_session");
      resumedFrom = undefined;
      result = await spawnClaude(claude, turn, workspaceDir, undefined, live, signal);
    }
    await recordOutcome(services, turn, live, result, resumedFrom);
  } catch (error) {
    const failure =
      error instanceof TurnFailure
        ? error
        : new TurnFailure(
            "internal_error",
            "The turn failed inside the service; see the service log.",
          );
    if (!(error instanceof TurnFailure))
      logger.error({ err: error, turnId }, "turn failed unexpectedly");
    await failTurn(services, turn, live, failure.code, failure.message, null, null, null);
  } finally {
    services.watchdog.untrack(turnId);
  }
}
