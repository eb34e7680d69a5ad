/**
 * Starts a real Junction (real HTTPS socket on 127.0.0.1, real NeDB files in a temp folder) for a test. `request`
 * calls its API over that socket; `inject` answers the same call in-process (Fastify's inject), for the many route
 * tests that need no socket.
 */
import type { MeasureSpace } from '../../service/disk/watcher.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch, Headers } from 'undici';
import type { RequestInit } from 'undici';
import type { LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import { memoryLogger } from './logger.js';
import { resolveConfig } from '../../service/config/index.js';
import type { JunctionConfig } from '../../service/config/index.js';
import { Junction } from '../../service/app.js';
import type { JobTimers } from '../../service/schedulers/timers.js';
import type { LiveFeedOptions } from '../../service/api/live-feed.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { DEFAULT_ROOT_PASSWORD, ROOT_EMAIL } from '../../service/accounts/users.js';

export { DEFAULT_ROOT_PASSWORD, ROOT_EMAIL };

export interface TestJunction {
  junction: Junction;
  url: string;
  /** Base URLs of the transaction ports. */
  httpUrl: string;
  httpsUrl: string;
  /** The server certificate (also served on the HTTPS transaction port). */
  certificate: string;
  dataDir: string;
  config: JunctionConfig;
  logs: Record<string, unknown>[];
  /** fetch against the API, trusting the server's own certificate (real TLS verification). */
  request(path: string, init?: TestRequestInit): Promise<TestResponse>;
  /**
   * The same call answered in-process, without a socket: faster, for tests of what a route answers. Anything about
   * the connection (TLS, HTTP parsing, timeouts, websockets) needs `request`.
   */
  inject(path: string, init?: TestRequestInit): Promise<TestResponse>;
  stop(): Promise<void>;
  /** Stops and removes the data folder. */
  destroy(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** fetch's options, plus `json`: a value sent as the JSON body. */
export type TestRequestInit = RequestInit & { json?: unknown };

type DeepPartial<T> = { [K in keyof T]?: T[K] extends readonly unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K] };

export async function tempDir(prefix = 'junction-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Starts Junction on an ephemeral port with the given file-style configuration. */
export async function startJunction(
  file: DeepPartial<JunctionConfig> = {},
  options: { dataDir?: string; env?: Record<string, string>; liveFeed?: LiveFeedOptions; consoleDir?: string | null; docsDir?: string | null; clock?: () => number; timers?: JobTimers; logger?: Logger; measureDisk?: MeasureSpace } = {},
): Promise<TestJunction> {
  const dataDir = options.dataDir ?? (await tempDir());
  const resolved = resolveConfig({ file: { ...file, dataDir }, env: options.env ?? {} }).config;
  // Port 0 (any free port) is not a valid production setting, so it is applied after validation.
  const config = structuredClone<JunctionConfig>(resolved);
  (config.api as { port: number }).port = 0;
  (config.api as { host: string }).host = '127.0.0.1';
  (config.router as { httpPort: number; httpsPort: number; host: string }).httpPort = 0;
  (config.router as { httpPort: number; httpsPort: number; host: string }).httpsPort = 0;
  (config.router as { httpPort: number; httpsPort: number; host: string }).host = '127.0.0.1';
  // A given logger (one writing the real log files) replaces the in-memory one; `logs` is then empty.
  const { logger, lines } = options.logger === undefined ? memoryLogger() : { logger: options.logger, lines: [] };
  const junction = new Junction({ config, logger, version: '9.9.9-test', ...(options.liveFeed === undefined ? {} : { liveFeed: options.liveFeed }),
    ...(options.consoleDir === undefined ? {} : { consoleDir: options.consoleDir }),
    ...(options.docsDir === undefined ? {} : { docsDir: options.docsDir }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
    ...(options.measureDisk === undefined ? {} : { measureDisk: options.measureDisk }),
  });
  const started = await junction.start().catch(async (err: unknown) => {
    await junction.stop();
    throw err;
  });
  const dispatcher = new Agent({ connect: { ca: started.certificate.cert, servername: 'localhost' } });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await junction.stop();
    await dispatcher.close();
  };
  return {
    junction,
    url: started.apiUrl,
    httpUrl: started.httpUrl,
    httpsUrl: started.httpsUrl,
    certificate: started.certificate.cert,
    dataDir,
    config,
    logs: lines,
    async request(path, init = {}) {
      const { headers, body, rest } = encoded(init);
      const response = await fetch(`${started.apiUrl}${path}`, { ...rest, headers, body, dispatcher });
      return answered(response.status, response.headers, await response.text());
    },
    async inject(path, init = {}) {
      const { headers, body, rest } = encoded(init);
      if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) throw new Error('inject sends text or bytes only');
      const response = await junction.inject({ method: rest.method ?? 'GET', url: path, headers: Object.fromEntries(headers), ...(body === undefined || body === null ? {} : { payload: Buffer.from(body) }) });
      return answered(response.statusCode, headersOf(response), response.body);
    },
    stop,
    async destroy() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The headers and body of a call, with `json` sent as an application/json body. */
function encoded(init: TestRequestInit): { headers: Headers; body: RequestInit['body']; rest: RequestInit } {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json === undefined) return { headers, body: rest.body, rest };
  headers.set('content-type', 'application/json');
  return { headers, body: JSON.stringify(json), rest };
}

/** An answer, with the body parsed when it is JSON. */
function answered(status: number, headers: Headers, text: string): TestResponse {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status, headers, text, body: parsed };
}

/** An injected answer's headers as fetch shows them (a repeated header such as Set-Cookie kept as several values). */
function headersOf(response: LightMyRequestResponse): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, String(one));
  }
  return headers;
}

/** The value of an `Authorization: Basic` header. */
export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** Reads the session cookie (name=value) from a Set-Cookie header. */
export function sessionCookie(response: TestResponse): string {
  const header = response.headers.get('set-cookie') ?? '';
  const pair = header.split(';')[0] ?? '';
  if (!pair.startsWith('junction.sid=')) throw new Error(`no session cookie in: ${header}`);
  return pair;
}

export const NEW_ROOT_PASSWORD = 'correct-horse-battery-9';

/** Changes the first-run password of the super user and returns Basic credentials for it. */
export async function unlockRoot(t: TestJunction): Promise<string> {
  const res = await t.inject(`/users/${ROOT_EMAIL}`, {
    method: 'PUT',
    headers: { authorization: basic(ROOT_EMAIL, DEFAULT_ROOT_PASSWORD) },
    json: { password: NEW_ROOT_PASSWORD },
  });
  if (res.status !== 200) throw new Error(`could not change the root password: ${res.status} ${res.text}`);
  return basic(ROOT_EMAIL, NEW_ROOT_PASSWORD);
}

/** The stored transaction once its second write is done (a client may get its answer before secondaries finish). */
export async function completedTransaction(t: TestJunction, id: string | null): Promise<TransactionRecord> {
  if (id === null || !/^[0-9a-f]{24}$/.test(id)) throw new Error(`not a transaction id: ${String(id)}`);
  for (let i = 0; i < 500; i++) {
    const tx = await t.junction.transactions.get(id);
    if (tx !== null && tx.status !== 'Processing') return tx;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`transaction ${id} did not complete`);
}
