import type { SessionRow, SessionScope } from "@talkide/turn-engine";

/**
 * The daemon's sessions in the turn engine's store (`@talkide/turn-engine`'s session store):
 * one open session per (agent, conversation), its scope, owned by the agent. The scope is the
 * warm pool's key too, the key the store's `sessionPoints` answers by.
 *
 * The runtime keeps the system prompt of a session's first turn for the whole session, so a
 * session is pinned to the standing prompt version it started with: a different version means
 * a fresh session, never a resumed one with a silently stale prompt (the engine's `isPinnedTo`). Which session a turn continues is the engine's rule
 * (`chooseSession`): a session begins with its first successful turn; before that (its row
 * exists from the conversation's first turn: its id is the agent's `TICLAWK_SESSION_ID`) it is
 * started afresh in place, pinned to the standing prompt of now, and never ended for an older
 * one.
 */

const AGENT = "agent:";

/** What the agent's sessions are listed, ended and deleted by. */
export function agentOwner(agentId: string): string {
  return `${AGENT}${agentId}`;
}

/** The scope of a conversation's session (agent ids hold no `/`: one key per conversation). */
export function conversationScope(agentId: string, conversationId: string): SessionScope {
  return {
    scope: `${agentOwner(agentId)}/conversation:${conversationId}`,
    owner: agentOwner(agentId),
    conversation: conversationId,
  };
}

/** The agent a session belongs to. */
export function agentIdOf(session: SessionRow): string {
  return session.owner.slice(AGENT.length);
}
