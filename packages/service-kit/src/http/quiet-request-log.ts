import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

/**
 * Fastify's per-request lines at `debug` instead of `info`: "incoming request", "request
 * completed", "route not found" and a client that left a stream early. At the default level
 * (`info`) a short walk through the backend's console wrote dozens of them and scrolled its
 * start banner away; the debug level shows them again. Failed requests stay at `error`
 * (Fastify's "request errored", and the error handler's "request failed").
 */
export class QuietRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error !== null && error !== undefined) {
      super.requestCompleted(error, request, reply);
      return;
    }
    if (this.isLogDisabled(request)) return;
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, "request completed");
  }

  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug(`Route ${request.raw.method ?? ""}:${request.raw.url ?? ""} not found`);
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    // A closed browser tab ends its event stream early: routine, not worth an info line.
    if ((error as { code?: unknown }).code === "ERR_STREAM_PREMATURE_CLOSE") {
      if (!this.isLogDisabled(request))
        reply.log.debug({ res: reply }, "stream closed prematurely");
      return;
    }
    super.streamError(error, request, reply);
  }
}
