import { readdir, readFile, readlink } from "node:fs/promises";

/** A process that holds a listening socket, as far as the operating system lets us see it. */
export interface PortHolder {
  readonly pid: number;
  /**
   * The executable's name only (e.g. `node`, `java`), never its arguments: this line is read
   * by agents, so it reaches the model provider, and arguments can carry secrets (tokens,
   * passwords in connection URLs). The pid is enough for the user to look further.
   */
  readonly command: string;
}

const TCP_LISTEN = "0A";
const MAX_COMMAND_LENGTH = 300;

/**
 * Socket inodes of TCP listeners on `port` in a `/proc/net/tcp` or `/proc/net/tcp6` table,
 * whatever address they are bound to. Pure, so the parsing is tested on fixed text.
 */
export function listeningInodes(table: string, port: number): string[] {
  const inodes: string[] = [];
  for (const line of table.split("\n").slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const state = fields[3];
    const inode = fields[9];
    if (local === undefined || state !== TCP_LISTEN || inode === undefined || inode === "0")
      continue;
    const portHex = local.slice(local.lastIndexOf(":") + 1);
    if (Number.parseInt(portHex, 16) === port) inodes.push(inode);
  }
  return inodes;
}

/** What the kernel's socket tables say about listeners on one port. */
export interface PortListeners {
  /** False when the tables cannot be read (not Linux, or /proc is hidden): nothing is known. */
  readonly tablesReadable: boolean;
  /** A TCP listener on the port exists, on any address, in this network namespace. */
  readonly listening: boolean;
  /** The processes holding such a listener that this user can see, lowest pid first. */
  readonly holders: readonly PortHolder[];
}

/**
 * Finds the listeners on `port` and the processes that hold them, from /proc alone: the
 * socket tables name each listening socket's inode, and every process's `fd` directory links
 * to `socket:[inode]` for the sockets it holds. A listener may have several holders (a
 * server that forked workers, or passed the socket on), and a holder may be invisible (a
 * process of another user, or in another pid namespace).
 */
export async function inspectPort(port: number): Promise<PortListeners> {
  const [listeners] = await inspectPorts([port]);
  if (listeners === undefined) throw new Error("inspectPorts returned nothing for one port");
  return listeners;
}

/**
 * `inspectPort` for several ports from one read of the socket tables, in the order given.
 * Reading `/proc/net/tcp` costs milliseconds however few sockets it lists (the kernel walks
 * its whole connection table), so a caller with several ports reads it once.
 */
export async function inspectPorts(ports: readonly number[]): Promise<PortListeners[]> {
  const tables = await Promise.all(
    ["/proc/net/tcp", "/proc/net/tcp6"].map((path) => readFile(path, "utf8").catch(() => null)),
  );
  if (tables.every((table) => table === null)) {
    return ports.map(() => ({ tablesReadable: false, listening: false, holders: [] }));
  }
  return Promise.all(
    ports.map(async (port): Promise<PortListeners> => {
      const inodes = new Set(
        tables.flatMap((table) => (table === null ? [] : listeningInodes(table, port))),
      );
      if (inodes.size === 0) return { tablesReadable: true, listening: false, holders: [] };
      return { tablesReadable: true, listening: true, holders: await holdersOfSockets(inodes) };
    }),
  );
}

async function holdersOfSockets(inodes: ReadonlySet<string>): Promise<PortHolder[]> {
  const links = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  const pids = (await readdir("/proc").catch(() => []))
    .filter((name) => /^[0-9]+$/.test(name))
    .map(Number);
  const holding = await Promise.all(
    pids.map(async (pid) => ((await holdsAny(pid, links)) ? pid : null)),
  );
  const holders: PortHolder[] = [];
  for (const pid of holding) {
    if (pid !== null) holders.push({ pid, command: await commandOf(pid) });
  }
  return holders.sort((a, b) => a.pid - b.pid);
}

async function holdsAny(pid: number, links: ReadonlySet<string>): Promise<boolean> {
  // Another user's process, or one that exited meanwhile, simply does not count.
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => null);
    if (target !== null && links.has(target)) return true;
  }
  return false;
}

async function commandOf(pid: number): Promise<string> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  const executable = cmdline.split("\0")[0] ?? "";
  const name = executable.slice(executable.lastIndexOf("/") + 1);
  if (name !== "") return printable(name);
  const comm = await readFile(`/proc/${pid}/comm`, "utf8").catch(() => "");
  return printable(`[${comm.trim() || "unknown"}]`);
}

/**
 * One line of plain text: the command is printed to terminals and read by agents, so a
 * control character (an escape sequence, a line break) in an argument must not survive.
 */
export function printable(command: string): string {
  const oneLine = command.replace(/[\p{Cc}\u2028\u2029]/gu, "?");
  const chars = Array.from(oneLine);
  return chars.length <= MAX_COMMAND_LENGTH
    ? oneLine
    : `${chars.slice(0, MAX_COMMAND_LENGTH - 1).join("")}…`;
}
