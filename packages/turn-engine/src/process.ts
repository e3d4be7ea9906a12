import {
  WarmClaudeProcess,
  warmFingerprint,
  type ColdReason,
  type SessionPoint,
  type WarmProcessOptions,
  type WarmProcessPool,
} from "@talkide/claude-cli";

/**
 * The process stages: take the session's kept ("warm") process when nothing its next request
 * depends on has changed, else start a new ("cold") one, fresh or resuming the session; after
 * the turn, keep a successful turn's process for the session's next turn and retire a failed
 * one. Either way the message goes in as one stream-json line, so a warm and a cold turn of
 * the same state send the same request.
 */
export interface TakenProcess {
  readonly process: WarmClaudeProcess;
  /** The credential the process was started with (the gateway's token), if the host gives one. */
  readonly credential: ProcessCredential | null;
  readonly kind: "warm" | "cold";
  /** Why the turn could not run warm; null when it did (or the host started it on purpose). */
  readonly coldReason: ColdReason | null;
  /** The value of the marker variable its processes carry: the id of the turn that started it. */
  readonly marker: string;
}

export interface ProcessRequest {
  /** The session's key in the warm pool (one process per session). */
  readonly key: string;
  /** Where the session stands now; null for a turn that starts a new session. */
  readonly point: SessionPoint | null;
  /** What a process reads when it starts besides the session (`warmContextDigest`). */
  readonly digest: string;
  /** This turn's id: the marker a process started for it carries. */
  readonly turnId: string;
  /** How a new process is started; the engine adds the marker variable and the tag. */
  readonly cold: ColdStart;
  /** Before anything is started for a cold turn (the daemon stores the turn's row). */
  readonly beforeColdStart?: (() => Promise<void>) | undefined;
  /** Before a process resumes the session: its stored transcript on disk (`materialiseTranscript`). */
  readonly beforeColdResume?: (() => Promise<void>) | undefined;
}

export interface ColdStart extends Pick<
  WarmProcessOptions,
  "claudePath" | "cwd" | "args" | "killGraceMs" | "watchdog"
> {
  readonly env: Readonly<Record<string, string>>;
  /** The variable that carries the turn's id into every process the turn starts. */
  readonly markerVariable: string;
  /**
   * A credential of its own for each new process (the host's LLM gateway issues one): its
   * variables are added to the process's environment (never to the startup digest, so a kept
   * process still matches), it is revoked when the process ends, and each turn the process
   * runs is attached to it while it runs.
   */
  readonly credential?: (() => ProcessCredential) | undefined;
}

/**
 * What a process holds instead of the provider's key (`@talkide/gateway`'s `GatewayCredential`
 * is one): the variables it needs, the turn it runs now, and its end.
 */
export interface ProcessCredential {
  readonly env: Readonly<Record<string, string>>;
  attach(turn: {
    readonly turnId: string;
    readonly userKey: string | null;
    readonly sessionKey: string | null;
  }): void;
  detach(): void;
  revoke(): void;
}

/** The credential each live process was started with: a kept process brings its own back. */
const credentials = new WeakMap<WarmClaudeProcess, ProcessCredential>();

/** The process this turn runs in: the kept one when its fingerprint matches, else a new one. */
export async function takeProcess(
  pool: WarmProcessPool,
  request: ProcessRequest,
): Promise<TakenProcess> {
  const checkout = pool.take(request.key, request.point, request.digest);
  if (checkout.process !== null) {
    return {
      process: checkout.process,
      credential: credentials.get(checkout.process) ?? null,
      kind: "warm",
      coldReason: null,
      marker: checkout.process.tag ?? request.turnId,
    };
  }
  await request.beforeColdStart?.();
  return { ...(await startColdProcess(pool, request)), coldReason: checkout.reason };
}

/**
 * A new process for the turn, resuming the session at `point` when given (the unknown-session
 * restart starts one for a new session directly).
 */
export async function startColdProcess(
  pool: WarmProcessPool,
  request: Omit<ProcessRequest, "digest" | "beforeColdStart">,
): Promise<TakenProcess> {
  // One process per session: one being ended (its turn failed, the context changed) has
  // exited before the next starts, so the two never touch the session's files at once.
  await pool.settled(request.key);
  // Whichever machine ran the session's last turn, its stored transcript is what resumes. It
  // must be on disk before the process starts: the CLI reads it at start.
  if (request.point !== null) await request.beforeColdResume?.();
  const { markerVariable, env, credential: issue, ...start } = request.cold;
  const marker = request.turnId;
  const credential = issue?.() ?? null;
  let process: WarmClaudeProcess;
  try {
    process = await WarmClaudeProcess.start({
      ...start,
      env: { ...env, ...credential?.env, [markerVariable]: marker },
      tag: marker,
    });
  } catch (error) {
    credential?.revoke();
    throw error;
  }
  if (credential !== null) {
    credentials.set(process, credential);
    // Whatever ends the process (its exit, a kill, a failed spawn), its token dies with it.
    void process.whenEnded().then(() => {
      credential.revoke();
    });
  }
  return { process, credential, kind: "cold", coldReason: null, marker };
}

/**
 * After the turn: a successful one leaves its process kept for the session's next turn, at the
 * session point it reached (the process stands for what it read when it started: `digest`); a
 * failed one has ended its process, and the next turn says why it starts cold.
 */
export function keepOrRetire(
  pool: WarmProcessPool,
  key: string,
  taken: Pick<TakenProcess, "process">,
  end: TurnEnd,
  digest: string,
): void {
  if (!end.ok) {
    pool.retire(key, taken.process, "previous_turn_failed");
    return;
  }
  pool.keep(
    key,
    warmFingerprint({ id: end.sessionId, at: end.lastMessageId }, digest),
    taken.process,
  );
}

/** How the process's turn ended, as far as keeping it goes (a `ClaudeTurnResult` is one). */
export type TurnEnd =
  | { readonly ok: true; readonly sessionId: string; readonly lastMessageId: string | null }
  | { readonly ok: false };
