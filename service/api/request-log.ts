/**
 * Fastify's per-request log lines, replaced: instead of two info lines for every request (`incoming request` and
 * `request completed`), one line once it is answered, at the level domain/operations/request-log.ts decides, so the
 * console's own reads stay out of the Logs page's default view while changes, refusals and failures stay in it.
 */
import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loggedUrl, requestLogLevel } from '../domain/operations/request-log.js';

export class RequestLog extends LogController {
  override incomingRequest(): void {
    // Said once, when answered: the answer's line carries the method and address too.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = {
      method: request.method,
      url: loggedUrl(request.url, request.routeOptions.url),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime),
      remoteAddress: request.ip,
    };
    // The answer failed on its way out (the socket broke mid-body): always worth seeing.
    if (error !== null && error !== undefined) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log[requestLogLevel(request.method, reply.statusCode)](fields, 'request completed');
  }
}
