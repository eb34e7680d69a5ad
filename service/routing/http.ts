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
  /** The whole answer, when the sender read it whole before answering (a message route's reply); `body` streams the same bytes. */
  bytes?: Buffer;
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

/** The origin (`http://host:port`) of a route, as messages name it. */
export function originOf(target: RouteTarget): string {
  return `${target.secured ? 'https' : 'http'}://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}

/**
 * Why an answer's body stopped before its end, once its status had arrived: a stall past the timeout (undici's
 * bodyTimeout), or a connection that closed or reset in the middle of it.
 */
export function answerBrokeOff(err: unknown, target: RouteTarget, timeoutMs: number): RouteError {
  const origin = originOf(target);
  if (isTimeout(err)) return new RouteError('timeout', `${origin} sent no more of its answer within ${timeoutMs} ms`, { cause: err });
  return new RouteError('connection', `${origin} stopped in the middle of its answer: ${(err as Error).message}`, { cause: err });
}

export interface HttpRouterOptions {
  /** Extra CA certificates (PEM) trusted for HTTPS routes, on top of the system's. */
  trustedCAs?: readonly string[];
  /** Connections per downstream origin. */
  connectionsPerOrigin?: number;
}

/** The sender of `http` routes (routing/senders.ts): it sends the request as it came, streamed. */
export class HttpRouter {
  readonly carries = 'request';
  readonly #options: HttpRouterOptions;
  #agent: Agent;
  /** Agents replaced by useTrustedCAs, closing once their requests finish. */
  readonly #retiring = new Set<Promise<void>>();

  constructor(options: HttpRouterOptions = {}) {
    this.#options = options;
    this.#agent = this.#agentFor(options.trustedCAs ?? []);
  }

  #agentFor(trustedCAs: readonly string[]): Agent {
    return new Agent({
      connections: this.#options.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 30_000,
      connect: { ca: [...rootCertificates, ...trustedCAs] },
    });
  }

  /**
   * Verifies new HTTPS connections against a new CA list: pooled connections were verified under the old one, so a
   * fresh agent takes over and the old one closes once its requests in flight finish.
   */
  useTrustedCAs(trustedCAs: readonly string[]): void {
    const old = this.#agent;
    this.#agent = this.#agentFor(trustedCAs);
    const closing = old.close().catch(() => undefined);
    this.#retiring.add(closing);
    void closing.then(() => this.#retiring.delete(closing));
  }

  /** Sends one request downstream and resolves when the response headers arrive; the body streams afterwards. */
  async send(call: RouteCall): Promise<RouteAnswer> {
    const origin = originOf(call.target);
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
      // Errors of the body reach whoever reads it; this keeps one that comes after its reader stopped (a body
      // destroyed because the client left) from being an uncaught exception that ends the process.
      response.body.on('error', () => undefined);
      return { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (err) {
      if (isTimeout(err)) throw new RouteError('timeout', `${origin} did not answer within ${call.timeoutMs} ms`, { cause: err });
      throw new RouteError('connection', `${origin} could not be reached: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    await Promise.all([this.#agent.close(), ...this.#retiring]);
  }
}
