/**
 * The proxy benchmark's C pacer against real Node servers on 127.0.0.1: it sends what it claims (the body, at an
 * even rate, on keep-alive connections), counts answers by status, reads chunked answers, and counts a connection
 * dropped without an answer as an error instead of waiting for it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileHttpPacer, runHttpPacer } from './programs.js';

let dir: string;
let pacer: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'junction-http-pacer-'));
  pacer = await compileHttpPacer(dir);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function withServer<T>(handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void, use: (port: number) => Promise<T>): Promise<T> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('http-pacer', () => {
  it('sends rate x seconds requests with their body, spread over the run, and counts answers by status', async () => {
    const body = Buffer.from(JSON.stringify({ resourceType: 'Observation', note: 'p'.repeat(500) }));
    const arrivals: number[] = [];
    const bodies = new Set<string>();
    const sockets = new Set<unknown>();
    let n = 0;
    const result = await withServer(
      (req, res, received) => {
        arrivals.push(performance.now());
        bodies.add(`${req.method} ${req.url} ${req.headers['content-type']} ${received.toString()}`);
        sockets.add(req.socket);
        n++;
        res.writeHead(n % 4 === 0 ? 503 : 200, { 'content-type': 'text/plain' }).end('ok');
      },
      (port) => runHttpPacer(pacer, { port, path: '/fhir/Observation', rate: 400, durationMs: 1000, connections: 8, body: { bytes: body, contentType: 'application/json' }, workDir: dir }),
    );
    expect(result.requests).toBe(400);
    expect(result.errors).toBe(0);
    expect(result.statuses).toEqual({ 200: 300, 503: 100 });
    expect([...bodies]).toEqual([`POST /fhir/Observation application/json ${body.toString()}`]);
    expect(sockets.size).toBeLessThanOrEqual(8);
    // Open loop at an even rate: the arrivals span the run rather than coming in a burst.
    const span = (arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0);
    expect(span).toBeGreaterThan(800);
    expect(result.generatorCpuSeconds).toBeGreaterThanOrEqual(0);
  });

  it('reads chunked answers', async () => {
    const result = await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first part, ');
        res.end('second part');
      },
      (port) => runHttpPacer(pacer, { port, path: '/', rate: 100, durationMs: 500, connections: 2, workDir: dir }),
    );
    expect(result).toMatchObject({ requests: 50, errors: 0, statuses: { 200: 50 } });
  });

  it('counts a connection dropped without an answer as an error and still ends', async () => {
    let n = 0;
    const result = await withServer(
      (req, res) => {
        n++;
        if (n % 5 === 0) req.socket.destroy();
        else res.end('ok');
      },
      (port) => runHttpPacer(pacer, { port, path: '/', rate: 100, durationMs: 500, connections: 4, workDir: dir }),
    );
    expect(result.requests + result.errors).toBe(50);
    expect(result.errors).toBeGreaterThanOrEqual(10);
    expect(result.statuses[200]).toBe(result.requests);
  });
});
