// Says, before anything is installed or built, whether `npm start` can listen where it will:
// TALKIDE_HOST (default 127.0.0.1) and TALKIDE_PORT (default 9090). Node's own `net` only, as
// nothing is installed yet. Exit 0: free (or port 0: any); exit 1: taken, with what to do.
import { createServer } from "node:net";

const host = process.env.TALKIDE_HOST?.trim() || "127.0.0.1";
const port = Number(process.env.TALKIDE_PORT?.trim() || "9090");
if (!Number.isInteger(port) || port === 0) process.exit(0);

const server = createServer();
server.once("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EADDRINUSE") {
    process.stderr.write(
      `error (address_in_use): port ${port} on ${host} is already in use by another process. ` +
        `Stop it, or start on another port: TALKIDE_PORT=${port + 1} npm start\n`,
    );
    process.exit(1);
  }
  // Anything else (a host this machine does not have, say) is the service's to report.
  process.exit(0);
});
server.listen({ host, port, exclusive: true }, () => {
  server.close(() => process.exit(0));
});
