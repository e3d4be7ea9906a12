import { ConfigError } from "@talkide/service-kit";
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_API_URL,
  daemonMissPhrase,
  modelProviderOf,
  senderUserKey,
} from "./model-gateway.ts";

describe("the daemon's model provider (issue 51)", () => {
  it("takes ANTHROPIC_API_KEY (sent as x-api-key) to ANTHROPIC_BASE_URL, or to the Anthropic API", () => {
    expect(
      modelProviderOf({ ANTHROPIC_API_KEY: "sk-ant-k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }),
    ).toEqual({ upstreamUrl: "http://127.0.0.1:9", credential: { apiKey: "sk-ant-k" } });
    expect(modelProviderOf({ ANTHROPIC_API_KEY: "sk-ant-k" })).toEqual({
      upstreamUrl: ANTHROPIC_API_URL,
      credential: { apiKey: "sk-ant-k" },
    });
  });

  it("takes ANTHROPIC_AUTH_TOKEN (sent as a bearer) when there is no key; the key wins over it", () => {
    expect(modelProviderOf({ ANTHROPIC_AUTH_TOKEN: "proxy-token" })?.credential).toEqual({
      authToken: "proxy-token",
    });
    expect(
      modelProviderOf({ ANTHROPIC_API_KEY: "sk-ant-k", ANTHROPIC_AUTH_TOKEN: "proxy-token" })
        ?.credential,
    ).toEqual({ apiKey: "sk-ant-k" });
  });

  it("runs no gateway without a credential (an empty one counts as none): the CLI's own login", () => {
    expect(modelProviderOf({ PATH: "/bin" })).toBeNull();
    expect(modelProviderOf({ ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "http://x" })).toBeNull();
  });

  it("refuses CLAUDE_CODE_OAUTH_TOKEN and a base URL that is not http(s), naming the variable, never its value", () => {
    const refusal = (env: Record<string, string>): ConfigError => {
      try {
        modelProviderOf(env);
      } catch (error) {
        if (error instanceof ConfigError) return error;
        throw error;
      }
      throw new Error("not refused");
    };
    const oauth = refusal({ CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-secret", PATH: "/bin" });
    expect(oauth.variable).toBe("CLAUDE_CODE_OAUTH_TOKEN");
    expect(oauth.message).toMatch(/ANTHROPIC_API_KEY/);
    expect(oauth.message).not.toContain("sk-ant-oat01-secret");
    const url = refusal({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "file:///etc/secret" });
    expect(url.variable).toBe("ANTHROPIC_BASE_URL");
    expect(url.message).not.toContain("/etc/secret");
  });

  it("counts a turn for the sender of the message that woke the agent", () => {
    const sender = { sender_user_id: null, sender_agent_id: null };
    expect(senderUserKey({ ...sender, sender_type: "human", sender_user_id: "u-anna" })).toBe(
      "user:u-anna",
    );
    expect(senderUserKey({ ...sender, sender_type: "agent", sender_agent_id: "bob" })).toBe(
      "agent:bob",
    );
    expect(senderUserKey({ ...sender, sender_type: "system" })).toBeNull();
    expect(senderUserKey({ ...sender, sender_type: "human" })).toBeNull();
  });

  it("names every miss but a kept prefix", () => {
    const miss = { position: null, gapMs: null, ttlMs: null };
    for (const reason of [
      "new_session",
      "tools_changed",
      "system_changed",
      "messages_changed",
      "ttl_expired",
    ] as const) {
      expect(daemonMissPhrase({ ...miss, reason }, null)).toMatch(/\w/);
    }
    expect(daemonMissPhrase({ ...miss, reason: "prefix_kept" }, null)).toBeNull();
  });
});
