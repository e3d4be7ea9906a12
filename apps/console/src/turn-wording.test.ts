import { describe, expect, it } from "vitest";
import {
  authorOf,
  costWords,
  failureWords,
  formatDuration,
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

  it("labels a demo model's cost as not real money, and says nothing of a cost not reported", () => {
    expect(costWords(stubTurn())).toBe("cost $0.0498 · conversation so far $0.0996");
    expect(costWords(stubTurn({ demoModel: true }))).toBe(
      "cost $0.0498 · conversation so far $0.0996 · demo model, not real money",
    );
    expect(costWords(stubTurn({ costUsd: null }))).toBeNull();
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
