/**
 * What the steps of a turn share: the database, the log, the pinned Claude Code settings, the
 * context layout and this instance's hub of live turns. One object, built once by the runner.
 */
import type { OrphanWatchdog, WarmProcessPool } from "@talkide/claude-cli";
import type { Gateway } from "@talkide/gateway";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { ContextLayout } from "../context/prepare.ts";
import type { WriteHooks } from "../context/write-if-changed.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import type { ClaudeSettings } from "./claude-args.ts";
import type { TurnEventHub } from "./turn-events.ts";

export interface TurnServices {
  readonly db: Kysely<DatabaseSchema>;
  readonly logger: Logger;
  readonly claude: ClaudeSettings;
  readonly layout: ContextLayout;
  readonly writeHooks?: WriteHooks;
  readonly hub: TurnEventHub;
  /** Ends this instance's turn processes when the instance dies, however it dies. */
  readonly watchdog: OrphanWatchdog;
  /** This instance's kept-alive Claude Code processes, one per project at most. */
  readonly warm: WarmProcessPool;
  /**
   * This instance's turns are answered by the local demo model (no ANTHROPIC_API_KEY): every
   * turn it runs is stored and announced with `demoModel: true`, so nobody takes its answers
   * for Claude's or its costs for real money.
   */
  readonly demoModel: boolean;
  /**
   * The LLM gateway every process of this instance talks to: each new process gets a token of
   * its own, every turn's exact usage, cost and cache miss come from its rows, and a turn over
   * a spend or token limit is refused before anything is spawned.
   */
  readonly gateway: Gateway;
}
