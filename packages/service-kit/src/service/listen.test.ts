import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { listen } from "./listen.ts";

describe("listen", () => {
  it("answers the port it got for port 0, and the URL on it", async () => {
    const app = Fastify();
    app.get("/", () => "hi");
    try {
      const { port, url } = await listen(app, "127.0.0.1", 0);
      expect(port).toBeGreaterThan(0);
      expect(url).toBe(`http://127.0.0.1:${port}`);
      expect(await (await fetch(url)).text()).toBe("hi");
    } finally {
      await app.close();
    }
  });
});
