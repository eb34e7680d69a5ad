/** A small client of Junction's management API for the benchmarks (Basic auth, trusting the service's own certificate). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { ADMIN } from './processes.js';

export interface Api {
  json<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<{ status: number; body: T; ms: number }>;
  /** Streams a GET to the end and reports its size, lines and duration. */
  drain(path: string): Promise<{ status: number; bytes: number; lines: number; ms: number }>;
  close(): Promise<void>;
}

/** Opens a client for the Junction whose data (and certificate) is in `dataDir`. */
export async function openApi(apiUrl: string, dataDir: string): Promise<Api> {
  const ca = await readFile(join(dataDir, 'keystore', 'server-cert.pem'), 'utf8');
  const dispatcher = new Agent({ connect: { ca, servername: 'localhost' }, connections: 4 });
  const authorization = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`;
  return {
    async json<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
      const started = performance.now();
      const res = await request(`${apiUrl}${path}`, {
        method,
        dispatcher,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      const ms = performance.now() - started;
      if (res.statusCode >= 400) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
      return { status: res.statusCode, body: (text === '' ? undefined : JSON.parse(text)) as T, ms };
    },
    async drain(path: string) {
      const started = performance.now();
      const res = await request(`${apiUrl}${path}`, { method: 'GET', dispatcher, headers: { authorization } });
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      }
      return { status: res.statusCode, bytes, lines, ms: performance.now() - started };
    },
    close: () => dispatcher.close(),
  };
}

/** A public channel that sends every request under `/` to the upstream (full storage: metadata and both bodies). */
export function passThroughChannel(upstreamPort: number, name = 'bench', options: { urlPattern?: string; bodies?: boolean } = {}): Record<string, unknown> {
  return {
    name,
    urlPattern: options.urlPattern ?? '^/.*$',
    authType: 'public',
    methods: [],
    requestBody: options.bodies ?? true,
    responseBody: options.bodies ?? true,
    routes: [{ name: 'upstream', host: '127.0.0.1', port: upstreamPort, primary: true }],
  };
}
