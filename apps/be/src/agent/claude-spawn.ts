/** Spawns Claude Code for one turn, fresh or resuming the project's session, and forwards its events. */
import { runClaudeTurn, type ClaudeTurnResult } from "@talkide/claude-cli";
import { importSafe } from "@talkide/prompts";
import type { TurnRow } from "../domain/turns.ts";
import { forwardAgentEvent } from "./agent-events.ts";
import { type ClaudeSettings, extraClaudeArgs, TURN_ID_VARIABLE } from "./claude-args.ts";
import type { SessionRow } from "./session-pinning.ts";
import type { LiveTurn } from "./turn-events.ts";

export function spawnClaude(
  claude: ClaudeSettings,
  turn: TurnRow,
  workspaceDir: string,
  session: SessionRow | undefined,
  live: LiveTurn,
  signal: AbortSignal,
): Promise<ClaudeTurnResult> {
  return runClaudeTurn({
    claudePath: claude.claudePath,
    cwd: workspaceDir,
    // Print mode reads a file for every `@word` at a word start in the prompt, anywhere on
    // the server and past the tool permissions; the member's words reach Mara with `\@`
    // (README, "The member's message loads no file").
    prompt: importSafe(turn.prompt),
    // The session continues from its last successful turn: whatever a failed turn left in
    // Claude Code's transcript after that message is not part of the conversation.
    resumeSessionId: session?.claude_session_id,
    resumeAtMessageId: session?.resume_at_message_id ?? undefined,
    pluginDir: claude.pluginDir,
    agent: claude.agentName,
    extraArgs: extraClaudeArgs(claude),
    env: { ...claude.env(), [TURN_ID_VARIABLE]: turn.id },
    timeoutMs: claude.timeoutMs,
    killGraceMs: claude.killGraceMs,
    signal,
    onEvent: (event) => {
      forwardAgentEvent(event, live);
    },
  });
}
