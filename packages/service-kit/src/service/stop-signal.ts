/**
 * Resolves with the first SIGINT or SIGTERM this process receives: when a service run in the
 * foreground shuts down. Listening for them means the process is no longer ended by them; the
 * service must stop and let the process exit.
 */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        resolve(signal);
      });
    }
  });
}
