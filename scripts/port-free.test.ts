import { execFile } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, "port-free.ts");

/** `npm start`'s first check: a busy port is named before anything is installed or built. */
describe("scripts/port-free.ts", () => {
  let busy: Server;
  let port: number;

  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const address = busy.address();
    port = typeof address === "object" && address !== null ? address.port : 0;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        busy.close(() => {
          resolve();
        });
      }),
  );

  it("names the busy port and says what to do", async () => {
    const failed = await run(process.execPath, [SCRIPT], {
      env: { ...process.env, TALKIDE_HOST: "127.0.0.1", TALKIDE_PORT: String(port) },
    }).then(
      () => null,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(failed?.stderr).toContain(`TALKIDE_PORT=${port + 1} npm start`);
  });

  it("says nothing for a free port, or for port 0", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const address = probe.address();
    const free = typeof address === "object" && address !== null ? address.port : 0;
    await new Promise<void>((resolve) => {
      probe.close(() => {
        resolve();
      });
    });
    for (const value of ["0", String(free)]) {
      const ok = await run(process.execPath, [SCRIPT], {
        env: { ...process.env, TALKIDE_HOST: "127.0.0.1", TALKIDE_PORT: value },
      });
      expect(ok.stderr).toBe("");
    }
  });
});
