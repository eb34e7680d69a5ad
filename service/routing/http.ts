/**
 * Outbound HTTP and HTTPS to downstream routes: pooled keep-alive connections (undici), streamed bodies both ways,
 * a per-call timeout, and redirects passed back to the caller rather than followed.
 */
import { rootCertificates } from 'node:tls';
import type { Readable } from 'node:stream';
import { Agent, errors } from 'undici';

export interface RouteTarget {
  host: string;
  port: number;
  /** HTTPS to the downstream. */
  secured: boolean;
}

export interface RouteCall {
  target: RouteTarget;
  method: string;
  path: string;
  /** Without the leading `?`. */
  querystring: string;
  headers: Record<string, string>;
  body?: Readable | Buffer | string | null;
  /** Milliseconds to wait for the response headers, and at most between two chunks of the response body. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface RouteAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

export type RouteFailure = 'connection' | 'timeout';

/** The downstream could not be reached, reset the connection, or did not answer in time. */
export class RouteError extends Error {
  override readonly name = 'RouteError';
  constructor(
    readonly kind: RouteFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError || err instanceof errors.ConnectTimeoutError;
}

export interface HttpRouterOptions {
  /** Extra CA certificates (PEM) trusted for HTTPS routes, on top of the system's. */
  trustedCAs?: readonly string[];
  /** Connections per downstream origin. */
  connectionsPerOrigin?: number;
}

export class HttpRouter {
  readonly #agent: Agent;

  constructor(options: HttpRouterOptions = {}) {
    this.#agent = new Agent({
      connections: options.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 30_000,
      connect: { ca: [...rootCertificates, ...(options.trustedCAs ?? [])] },
    });
  }

  /** Sends one request downstream and resolves when the response headers arrive; the body streams afterwards. */
  async send(call: RouteCall): Promise<RouteAnswer> {
    const origin = `${call.target.secured ? 'https' : 'http'}://${call.target.host.includes(':') ? `[${call.target.host}]` : call.target.host}:${call.target.port}`;
    const path = call.querystring === '' ? call.path : `${call.path}?${call.querystring}`;
    try {
      const response = await this.#agent.request({
        origin,
        path,
        method: call.method,
        headers: call.headers,
        body: call.body ?? null,
        headersTimeout: call.timeoutMs,
        bodyTimeout: call.timeoutMs,
        signal: call.signal,
      });
      return { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (err) {
      if (isTimeout(err)) throw new RouteError('timeout', `${origin} did not answer within ${call.timeoutMs} ms`, { cause: err });
      throw new RouteError('connection', `${origin} could not be reached: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Closes the pooled connections. */
  close(): Promise<void> {
    return this.#agent.close();
  }
}
