/**
 * Sends `signal` to every process in the group led by `pid` (the child was spawned with
 * `detached: true`, which makes it a group leader). Returns whether any process received it:
 * `false` when the group is already empty. Never throws: a group that vanished between the
 * decision and the kill is the outcome that was wanted anyway.
 */
export function killProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
