// A stand-in for a project's dev server: listens on the given loopback port and says so.
// Usage: node listen.ts <port> <host> [ignore-sigterm]
import { createServer } from "node:net";

const [portText, host, mode] = process.argv.slice(2);
if (mode === "ignore-sigterm") {
  // Like a server stuck in shutdown: only SIGKILL ends it.
  process.on("SIGTERM", () => {
    process.stdout.write("ignored SIGTERM\n");
  });
}
const server = createServer((socket) => socket.end());
server.listen({ port: Number(portText), host, exclusive: true }, () => {
  process.stdout.write("listening\n");
});
