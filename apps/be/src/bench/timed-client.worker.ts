// The thread of TimedClient (see timed-client.ts): one request at a time.
import { performance } from "node:perf_hooks";
import type { ReadableStreamReadResult } from "node:stream/web";
import { parentPort } from "node:worker_threads";
import { parseSse, type SseEvent } from "../test-support/harness.ts";

const absolute = (): number => performance.timeOrigin + performance.now();

async function message(request: {
  url: string;
  token: string;
  projectId: number;
  text: string;
}): Promise<{ sent: number; events: Array<SseEvent & { at: number }> }> {
  const sent = absolute();
  const response = await fetch(`${request.url}/v1/projects/${request.projectId}/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${request.token}`,
      "content-type": "application/json",
      accept: "text/event-stream",
    },
    body: JSON.stringify({ text: request.text }),
  });
  if (response.body === null) throw new Error(`no event stream (${response.status})`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events: Array<SseEvent & { at: number }> = [];
  let buffer = "";
  for (;;) {
    const read: ReadableStreamReadResult<Uint8Array> = await reader.read();
    if (read.done) break;
    const at = absolute();
    buffer += decoder.decode(read.value, { stream: true });
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      for (const event of parseSse(buffer.slice(0, cut + 2))) events.push({ ...event, at });
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf("\n\n");
    }
  }
  return { sent, events };
}

parentPort?.on("message", (request: Parameters<typeof message>[0]) => {
  message(request).then(
    (reply) => parentPort?.postMessage(reply),
    (error: unknown) => parentPort?.postMessage({ sent: 0, events: [], error: String(error) }),
  );
});
