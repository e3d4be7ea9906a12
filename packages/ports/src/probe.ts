import { createServer } from "node:net";
import { PortsError } from "./errors.ts";
import { inspectPort, type PortHolder } from "./socket-table.ts";

export type PortProbe =
  | { readonly port: number; readonly state: "free" }
  | { readonly port: number; readonly state: "busy"; readonly holder: PortHolder | null };

export interface ProbeOptions {
  /** Where the bind test listens; loopback by default, so a probe never exposes anything. */
  readonly host?: string;
}

/**
 * Whether a project's server could listen on `port` now, and if not, who holds it.
 *
 * Two looks, either of which makes the port busy: a short bind test on `host`, and (on
 * Linux) the kernel's socket tables, where a listener on any address counts — the project's
 * server may bind `localhost` as IPv4 or IPv6, or every interface, so a listener on `::1`
 * blocks it just as much as one on `127.0.0.1`. The holder is the lowest pid with the
 * listening socket open, or `null` when the operating system does not show it (another
 * user's process, another OS).
 *
 * It reports and nothing more: it never suggests, picks or frees another port.
 */
export async function probePort(port: number, options: ProbeOptions = {}): Promise<PortProbe> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new PortsError(
      "invalid_port",
      "port",
      `A port must be an integer from 1 to 65535; got ${String(port)}.`,
    );
  }
  const host = options.host ?? "127.0.0.1";
  const listeners = await inspectPort(port);
  const bindable = await canBind(port, host);
  if (bindable && !listeners.listening) return { port, state: "free" };
  return { port, state: "busy", holder: listeners.holders[0] ?? null };
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve(false);
      else
        reject(
          new PortsError(
            "probe_failed",
            "port",
            `Could not test port ${port} on ${host}: ${error.code ?? error.message}.`,
            {
              cause: error,
            },
          ),
        );
    });
    server.listen({ port, host, exclusive: true }, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}
