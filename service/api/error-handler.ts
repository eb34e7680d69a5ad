/** Renders every failure as the one JSON error shape, mapping framework errors onto catalogue codes. */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { StoreError } from '../storage/store.js';
import { invalidInput } from '../refusals.js';
import { writeRawError } from './raw-answer.js';
import { describeValidationErrors } from './validation.js';

// Fastify's own client-error codes, mapped to ours so callers see one catalogue.
const frameworkCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_BAD_URL: 'INVALID_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'PATH_PARAMETER_TOO_LONG',
  FST_ERR_ASYNC_CONSTRAINT: 'BAD_REQUEST',
};

function toAppError(error: FastifyError | Error): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    const part = fastifyError.validationContext ?? 'request';
    return invalidInput(describeValidationErrors(fastifyError.validation, part), 'The request is not valid');
  }
  const mapped = fastifyError.code === undefined ? undefined : frameworkCodes[fastifyError.code];
  if (mapped !== undefined) {
    const detail = mapped === 'INVALID_JSON' ? fastifyError.message : undefined;
    return new AppError(mapped, undefined, detail === undefined ? null : { reason: detail });
  }
  // JSON.parse errors surface as SyntaxError with a 400 status from the body parser.
  if (error instanceof SyntaxError || fastifyError.statusCode === 400) {
    return new AppError('INVALID_JSON', undefined, { reason: error.message });
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError('BAD_REQUEST', error.message);
  }
  if (error instanceof StoreError) return new AppError('STORE_UNAVAILABLE', undefined, null, { cause: error });
  return new AppError('INTERNAL', undefined, null, { cause: error });
}

/** Answers a failed request with the one error shape; also Fastify's `frameworkErrors` (a bad URL, a too-long parameter). */
export function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error);
  if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ code: appError.code, status: appError.status }, appError.message);
  void reply.code(appError.status).headers(appError.headers).type('application/json; charset=utf-8').send(appError.toBody());
}

function clientErrorOf(error: NodeJS.ErrnoException): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT');
    default:
      return new AppError('BAD_REQUEST', 'The request is not valid HTTP/1.1');
  }
}

/**
 * Fastify's `clientErrorHandler`: a request that Node's HTTP parser refused (headers or a query string too large, bytes
 * that are not HTTP) gets the one error shape too, then the connection is closed, as Node would.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already under way on this connection cannot be followed by another: only closing is left.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || current?.headersSent === true) {
    socket.destroy();
    return;
  }
  const appError = clientErrorOf(error);
  this.log.info({ code: appError.code, status: appError.status, reason: error.code }, appError.message);
  writeRawError(socket, appError);
}

/** Installs the error and not-found handlers. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => sendError(error, request, reply));
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const error = new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`);
    void reply.code(404).type('application/json; charset=utf-8').send(error.toBody());
  });
}

/**
 * A connection that went silent for the idle deadline: a request still arriving gets 408 in the error shape; any other
 * (an answer under way to a client that stopped reading, or an idle one) is closed. Node would only destroy it.
 */
export function answerIdleConnections(app: FastifyInstance): void {
  app.server.on('timeout', (socket: Socket) => {
    const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.destroyed) return;
    if (current !== undefined && current !== null && current.headersSent !== true && socket.writable) {
      app.log.info({ code: 'REQUEST_TIMEOUT', status: 408 }, 'a client went silent in the middle of a request');
      writeRawError(socket, new AppError('REQUEST_TIMEOUT'));
      return;
    }
    socket.destroy();
  });
}
