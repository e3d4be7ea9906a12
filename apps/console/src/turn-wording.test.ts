import { describe, expect, it } from "vitest";
import type { CacheMiss } from "./api.ts";
import {
  authorOf,
  cacheWords,
  costExactly,
  costWords,
  failureWords,
  formatDuration,
  missDetails,
  missWords,
  rereadWords,
  statusWords,
} from "./turn-wording.ts";
import { stubTurn } from "./turn-stub.ts";

const files = (...changed: string[]) => ({
  layout: "imports",
  resumeReminderBytes: 120,
  files: ["CLAUDE.md", ".talkide/active-writer.md", ".talkide/project.yml"].map((path) => ({
    path,
    changed: changed.includes(path),
    bytes: 10,
    instruction: true,
  })),
});

describe("a turn card's words", () => {
  it("says who Mara works for, how long an answer took and who stopped a turn", () => {
    expect(statusWords(stubTurn({ status: "running", finishedAt: null }), "Bob")).toBe(
      "Mara is working for Bob…",
    );
    expect(statusWords(stubTurn({}), "Anna")).toBe("Answered in 4.1 s.");
    expect(statusWords(stubTurn({ status: "stopped", stoppedBy: "Anna" }), "Bob")).toBe(
      "Stopped by Anna after 4.1 s.",
    );
    expect(
      statusWords(stubTurn({ status: "queued", startedAt: null, finishedAt: null }), "B"),
    ).toBe("Waiting: Mara answers the messages before it first.");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
  });

  it("names the writer by the turn's author, else the roster, else as a former member", () => {
    const members = [{ id: "m1", salutation: "Anička" }];
    expect(authorOf(stubTurn({ author: "Anna" }), members)).toBe("Anna");
    // A turn from a backend before issue 52 carries no author.
    expect(authorOf({ memberId: "m1" }, members)).toBe("Anička");
    expect(authorOf({ memberId: "gone" }, members)).toBe("a former member");
  });

  it("says what the turn cost and what the conversation has cost so far, in dollars", () => {
    expect(costWords(stubTurn())).toBe("This turn cost $0.0498 · conversation so far $0.0996");
    expect(costWords(stubTurn({ costUsd: 0.012345678, cumulativeCostUsd: 1.2345 }))).toBe(
      "This turn cost $0.0123 · conversation so far $1.23",
    );
    // A turn in no session has no running total.
    expect(costWords(stubTurn({ cumulativeCostUsd: null }))).toBe("This turn cost $0.0498");
    // Nothing reached the model (a turn refused over a limit).
    expect(costWords(stubTurn({ status: "failed", costUsd: 0, cumulativeCostUsd: null }))).toBe(
      "This turn cost nothing",
    );
    expect(costExactly(stubTurn({ costUsd: 0.0123456789, cumulativeCostUsd: 0.10546 }))).toBe(
      "This turn cost exactly $0.0123456789; conversation so far exactly $0.10546",
    );
  });

  it("labels a demo model's cost as not real money", () => {
    expect(costWords(stubTurn({ demoModel: true }))).toBe(
      "This turn cost $0.0498 · conversation so far $0.0996 · demo model: not real money",
    );
    expect(costWords(stubTurn({ demoModel: true, costUsd: null, cumulativeCostUsd: null }))).toBe(
      "Cost not recorded · demo model: not real money",
    );
  });

  it("says a finished turn's cost was not recorded, and nothing of a turn still at work", () => {
    // Recorded before the LLM gateway, by a CLI that reported no cost: never "unknown".
    const old = { costUsd: null, cumulativeCostUsd: null, usage: null, cacheMiss: null };
    expect(costWords(stubTurn(old))).toBe("Cost not recorded");
    expect(costWords(stubTurn({ ...old, status: "stopped" }))).toBe("Cost not recorded");
    expect(costWords(stubTurn({ ...old, status: "running" }))).toBeNull();
    expect(costWords(stubTurn({ ...old, status: "queued" }))).toBeNull();
    expect(costExactly(stubTurn(old))).toBeNull();
    expect(cacheWords(stubTurn(old))).toBeNull();
  });

  it("shows a usage limit's message as the backend words it: the limit and who can raise it", () => {
    const message =
      "This project's daily spending limit of $50.00 is reached ($50.13 used today (UTC)). It resets at the start of the next day (UTC); the service's operator can raise it with TALKIDE_LIMIT_PROJECT_DAY_USD.";
    expect(failureWords({ code: "usage_limit_reached", message })).toBe(message);
  });

  it("puts failures in sentences, never a bare code", () => {
    expect(failureWords({ code: "turn_aborted", message: "aborted" })).toBe(
      "The answer was cut off before it was complete. Retry to ask again.",
    );
    // A code the console does not know: the backend's message already speaks to people.
    expect(failureWords({ code: "new_code", message: "The queue is full." })).toBe(
      "The queue is full.",
    );
  });

  it("says why Mara re-read the project, from the cold reason and the files that changed", () => {
    const cold = (coldReason: string, ...changed: string[]) =>
      stubTurn({ process: "cold", coldReason, context: files(...changed) });
    expect(rereadWords(cold("context_changed", ".talkide/active-writer.md"), "Bob")).toBe(
      "Mara re-read the project because Bob started writing.",
    );
    expect(rereadWords(cold("context_changed", "CLAUDE.md"), "Bob")).toBe(
      "Mara re-read the project because its description or team changed.",
    );
    expect(rereadWords(cold("context_changed"), "Bob")).toBe(
      "Mara re-read the project because the instructions she reads changed.",
    );
    expect(rereadWords(cold("new_session"), "Bob")).toBe(
      "Mara read the project to start a new conversation.",
    );
    expect(rereadWords(cold("evicted"), "Bob")).toBe(
      "Mara re-read the project to continue the conversation.",
    );
    // A warm turn carried on where the last one ended: nothing to say.
    expect(rereadWords(stubTurn({ process: "warm", coldReason: null }), "Bob")).toBeNull();
  });
});

const miss = (reason: CacheMiss["reason"], fields: Partial<CacheMiss> = {}): CacheMiss => ({
  reason,
  phrase: null,
  position: null,
  gapMs: null,
  ttlMs: null,
  ...fields,
});

const usage = (cacheCreationInputTokens: number, cacheReadInputTokens: number) => ({
  inputTokens: 3,
  cacheCreationInputTokens,
  cacheReadInputTokens,
  outputTokens: 12,
  cacheCreation5mInputTokens: 0,
  cacheCreation1hInputTokens: cacheCreationInputTokens,
});

describe("a turn card's cache line", () => {
  it("says a new conversation wrote the whole prompt, in the console's words", () => {
    const turn = stubTurn({
      usage: usage(13_177, 0),
      cacheMiss: miss("new_session", { phrase: "a new session started" }),
    });
    expect(cacheWords(turn)).toBe("Wrote 13,177 tokens to the cache: a new conversation");
  });

  it("says a turn that only appended read the cache and wrote only the new message", () => {
    const turn = stubTurn({ usage: usage(16, 13_020), cacheMiss: miss("prefix_kept") });
    expect(cacheWords(turn)).toBe(
      "Read 13,020 tokens from the cache, wrote 16 (only the new message)",
    );
    expect(cacheWords(stubTurn({ usage: usage(16, 0), cacheMiss: miss("prefix_kept") }))).toBe(
      "Wrote 16 tokens to the cache (only the new message)",
    );
  });

  it("says what else a turn that only appended wrote when its context changed", () => {
    const turn = stubTurn({
      usage: usage(137, 13_635),
      cacheMiss: miss("prefix_kept", {
        phrase: "the active writer changed, the roster section changed",
      }),
    });
    expect(cacheWords(turn)).toBe(
      "Read 13,635 tokens from the cache, wrote 137: the new message, and the active writer changed, the roster section changed",
    );
  });

  it("uses the backend's phrase for a miss, and what was still read before the change", () => {
    const turn = stubTurn({
      usage: usage(3_120, 10_057),
      cacheMiss: miss("messages_changed", {
        phrase: "the roster section changed",
        position: { section: "messages", index: 2, block: 0, offset: 120 },
      }),
    });
    expect(cacheWords(turn)).toBe(
      "Wrote 3,120 tokens to the cache: the roster section changed; read 10,057 from it",
    );
    const writer = miss("messages_changed", { phrase: "the active writer changed" });
    expect(cacheWords(stubTurn({ usage: usage(13_177, 0), cacheMiss: writer }))).toBe(
      "Wrote 13,177 tokens to the cache: the active writer changed",
    );
  });

  it("has plain words for each reason the backend does not name", () => {
    expect(missWords(miss("new_session"))).toBe("a new conversation");
    expect(missWords(miss("tools_changed"))).toBe("Mara's tools changed");
    expect(missWords(miss("system_changed"))).toBe("Mara's agent file changed");
    expect(missWords(miss("messages_changed"))).toBe("an earlier message changed");
    expect(missWords(miss("ttl_expired", { gapMs: 72 * 60_000 }))).toBe(
      "the cache expired after 72 min",
    );
    expect(missWords(miss("ttl_expired", { gapMs: 5 * 3_600_000 }))).toBe(
      "the cache expired after 5 h",
    );
    expect(missWords(miss("ttl_expired", { gapMs: 3 * 86_400_000 }))).toBe(
      "the cache expired after 3 days",
    );
    expect(missWords(miss("ttl_expired"))).toBe("the cache expired");
    expect(missWords(miss("prefix_kept"))).toBe("only the new message");
    // The backend's words win where it has them (but "session" stays "conversation").
    expect(missWords(miss("ttl_expired", { phrase: "the cache expired after 62 min" }))).toBe(
      "the cache expired after 62 min",
    );
    expect(missWords(miss("system_changed", { phrase: "the agent file changed" }))).toBe(
      "the agent file changed",
    );
    const expired = miss("ttl_expired", { gapMs: 62 * 60_000, ttlMs: 60 * 60_000 });
    expect(cacheWords(stubTurn({ usage: usage(13_200, 0), cacheMiss: expired }))).toBe(
      "Wrote 13,200 tokens to the cache: the cache expired after 62 min",
    );
  });

  it("gives an older turn's figures without a reason, and nothing without tokens or cache", () => {
    const before = {
      inputTokens: 6,
      cacheCreationInputTokens: 412,
      cacheReadInputTokens: 14_873,
      outputTokens: 233,
    };
    expect(cacheWords(stubTurn({ usage: before, cacheMiss: null }))).toBe(
      "Read 14,873 tokens from the cache, wrote 412",
    );
    expect(
      cacheWords(stubTurn({ usage: { ...before, cacheReadInputTokens: 0 }, cacheMiss: null })),
    ).toBe("Wrote 412 tokens to the cache");
    expect(cacheWords(stubTurn({ usage: usage(0, 14_873), cacheMiss: miss("prefix_kept") }))).toBe(
      "Read 14,873 tokens from the cache, wrote nothing new",
    );
    expect(cacheWords(stubTurn({ usage: usage(0, 0), cacheMiss: miss("new_session") }))).toBeNull();
    expect(cacheWords(stubTurn({ usage: null, cacheMiss: null }))).toBeNull();
  });

  it('gives the details for "What Mara sees": the code, where the prompt changed, the pause', () => {
    expect(
      missDetails(
        miss("messages_changed", {
          phrase: "the roster section changed",
          position: { section: "messages", index: 2, block: 0, offset: 120 },
        }),
      ),
    ).toBe("the roster section changed (messages_changed at message 3, block 1, byte 120)");
    expect(
      missDetails(
        miss("tools_changed", { position: { section: "tools", index: 4, block: null, offset: 0 } }),
      ),
    ).toBe("Mara's tools changed (tools_changed at tool 5, byte 0)");
    expect(
      missDetails(
        miss("ttl_expired", {
          phrase: "the cache expired after 62 min",
          gapMs: 62 * 60_000,
          ttlMs: 60 * 60_000,
        }),
      ),
    ).toBe(
      "the cache expired after 62 min (ttl_expired; 62 min after the last request, the cache keeps 60 min)",
    );
    expect(missDetails(null)).toBe("not recorded");
  });
});
