/**
 * An error answer written straight onto a socket, for the few places where no Fastify reply exists: a request Node's
 * HTTP parser refused, and a websocket upgrade. It carries the same JSON error shape as every other answer.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppError } from '../errors.js';

/** Writes `error` as a complete HTTP/1.1 answer that closes the connection, then closes the socket once it is sent. */
export function writeRawError(socket: Duplex, error: AppError, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(error.toBody());
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    ...Object.entries({ ...error.headers, ...headers }).map(([name, value]) => `${name}: ${value}`),
  ];
  // Closed as soon as the answer is flushed, rather than waiting for the peer to close its side.
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
