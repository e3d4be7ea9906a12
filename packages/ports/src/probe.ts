import { createServer } from "node:net";
import { PortsError } from "./errors.ts";
import { inspectPorts, type PortHolder, type PortListeners } from "./socket-table.ts";

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
 * Busy when anything listens on the port at any address, or a short bind test on `host`
 * fails: the project's server may bind `localhost` as IPv4 or IPv6, or every interface, so a
 * listener on `::1` blocks it just as much as one on `127.0.0.1` (see `probePorts` for how
 * that is seen). The holder is the lowest pid with the
 * listening socket open, or `null` when the operating system does not show it (another
 * user's process, another OS).
 *
 * It reports and nothing more: it never suggests, picks or frees another port.
 */
export async function probePort(port: number, options: ProbeOptions = {}): Promise<PortProbe> {
  const [probe] = await probePorts([port], options);
  if (probe === undefined) throw new Error("probePorts returned nothing for one port");
  return probe;
}

/**
 * `probePort` for several ports at once, in the order given.
 *
 * The first look at each port is a bind test on every address at once (`::`, both IPv6 and
 * IPv4): the kernel refuses it while anything listens on the port on any address, so a port
 * it accepts (and then `host` accepts) is free. Only the others need the socket tables, read
 * once for all of them: that read costs milliseconds of CPU on Linux however few sockets there
 * are (the kernel walks its whole connection table), and busy ports are the rare case. Where
 * the `::` test cannot run (no IPv6), every port is looked up in the tables as well.
 */
export async function probePorts(
  ports: readonly number[],
  options: ProbeOptions = {},
): Promise<PortProbe[]> {
  for (const port of ports) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new PortsError(
        "invalid_port",
        "port",
        `A port must be an integer from 1 to 65535; got ${String(port)}.`,
      );
    }
  }
  const host = options.host ?? "127.0.0.1";
  // Each port once: two bind tests of one port at the same moment would see each other.
  const distinct = [...new Set(ports)];
  const bindable = await Promise.all(distinct.map((port) => bindTests(port, host)));
  const unsure = distinct.filter((_, index) => bindable[index] !== "free");
  const listeners = await inspectPorts(unsure);
  const byPort = new Map<number, PortProbe>();
  distinct.forEach((port, index) => {
    if (bindable[index] === "free") byPort.set(port, { port, state: "free" });
  });
  unsure.forEach((port, index) => {
    const bound = bindable[distinct.indexOf(port)];
    byPort.set(port, verdict(port, listeners[index] ?? unknownListeners, bound === "host_only"));
  });
  return ports.map((port) => byPort.get(port) ?? verdict(port, unknownListeners, false));
}

/**
 * The bind tests of one port, one after the other (they would see each other): `free` when
 * both every address and `host` accept it, `host_only` when `host` does but every address
 * could not be tested, `refused` when either refuses.
 */
async function bindTests(port: number, host: string): Promise<"free" | "host_only" | "refused"> {
  const everywhere = await canBind(port, "::").catch((error: unknown) => {
    // No IPv6 on this machine: the tables decide, as with no test at all.
    if (error instanceof PortsError) return null;
    throw error;
  });
  if (everywhere === false) return "refused";
  if (!(await canBind(port, host))) return "refused";
  return everywhere === true ? "free" : "host_only";
}

const unknownListeners: PortListeners = { tablesReadable: false, listening: false, holders: [] };

function verdict(port: number, listeners: PortListeners, bindable: boolean): PortProbe {
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
