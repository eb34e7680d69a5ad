/**
 * Issue 12 item 2: no transaction stays Processing. Real upstreams on 127.0.0.1 break their answers on purpose (a
 * reset or a stall in the middle of the body), or the client leaves while its answer is on the way, for small
 * (buffered) and large or chunked (streamed) bodies, on the primary and on a secondary route. Each transaction must
 * reach a final status with the error recorded, and emit `transaction.completed`.
 */
import { request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import type { TransactionEvent } from '../../service/events/live.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';

type Fault = 'reset' | 'stall' | 'leave' | 'ok';
/** small: Content-Length under 64 KB (read whole); large: Content-Length over it; chunked: no length. Both stream. */
type Framing = 'small' | 'large' | 'chunked';

const SIZE: Record<Framing, number> = { small: 1000, large: 200_000, chunked: 200_000 };
const TIMEOUT_MS = 300;

/** What the test client saw: the status (0 when it saw none) and whether the whole body arrived. */
interface Seen {
  status: number;
  complete: boolean;
  body: string;
}

describe('answers that break off: every transaction reaches a final status', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let faulty: Upstream;
  let good: Upstream;
  const started = new Map<string, string>();
  const completed = new Map<string, TransactionEvent>();
  /** Upstream requests by path, so a test can act once the upstream has sent the first part. */
  const firstPartSent = new Map<string, () => void>();
  const firstPart = (path: string) => new Promise<void>((resolve) => firstPartSent.set(path, resolve));
  let counter = 0;

  /** The faulty upstream: the path names the fault and the framing, e.g. `/p/reset/large/3`. */
  function misbehave(req: IncomingMessage, res: ServerResponse): void {
    const [, side, fault, framing] = (req.url ?? '').split('/') as [string, string, Fault, Framing];
    const size = SIZE[framing];
    // Under /m/ the upstream is a mediator: its answer is a structured response, which Junction reads whole first.
    const type = side === 'm' ? 'application/json+openhim' : 'text/plain';
    void readBody(req).then(() => {
      res.writeHead(200, { 'content-type': type, ...(framing === 'chunked' ? {} : { 'content-length': String(size) }) });
      if (fault === 'ok') {
        res.end('k'.repeat(size));
        return;
      }
      res.write('h'.repeat(Math.floor(size / 2)), () => {
        firstPartSent.get(req.url ?? '')?.();
        // A reset closes the connection in the middle of the body; a stall or a leaving client just holds it open.
        if (fault === 'reset') res.socket?.destroy();
      });
    });
  }

  async function channel(body: Record<string, unknown>): Promise<void> {
    const res = await t.request('/channels', { method: 'POST', headers: admin, json: body });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${res.text}`);
  }

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    faulty = await httpUpstream(misbehave);
    good = await httpUpstream((req, res) => {
      void readBody(req).then(() => res.end('fine'));
    });
    const route = (name: string, port: number, primary: boolean) => ({ name, host: '127.0.0.1', port, primary });
    await channel({ name: 'faulty-primary', urlPattern: '^/p/.*$', authType: 'public', timeout: TIMEOUT_MS, routes: [route('faulty', faulty.port, true)] });
    await channel({ name: 'faulty-mediator', urlPattern: '^/m/.*$', authType: 'public', timeout: TIMEOUT_MS, routes: [route('mediator', faulty.port, true)] });
    await channel({ name: 'faulty-secondary', urlPattern: '^/s/.*$', authType: 'public', timeout: TIMEOUT_MS, routes: [route('good', good.port, true), route('faulty', faulty.port, false)] });
    t.junction.events.on('transaction.started', (e) => started.set(e.path, e.transactionId));
    t.junction.events.on('transaction.completed', (e) => completed.set(e.transactionId, e));
  });

  afterAll(async () => {
    await t.destroy();
    await faulty.close();
    await good.close();
  });

  /** Calls Junction; `leave` decides when the client hangs up (it then sees whatever arrived). Never rejects. */
  function call(path: string, leave?: (res: IncomingMessage | undefined) => Promise<void> | undefined): Promise<Seen> {
    const url = new URL(path, t.httpUrl);
    return new Promise((resolve) => {
      let status = 0;
      let body = '';
      const done = (complete: boolean) => resolve({ status, complete, body });
      const req = request(url, (res) => {
        status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => done(true));
        res.on('error', () => done(false));
        res.on('aborted', () => done(false));
        void leave?.(res)?.then(() => req.destroy());
      });
      req.on('error', () => done(false));
      req.end();
      void leave?.(undefined)?.then(() => req.destroy());
    });
  }

  /** The transaction of `path` once `transaction.completed` was emitted for it, as stored. */
  async function finished(path: string): Promise<{ event: TransactionEvent; tx: TransactionRecord }> {
    const id = await until(`the transaction of ${path} to start`, () => started.get(path), 5000);
    const event = await until(`transaction.completed for ${path}`, () => completed.get(id), 5000);
    const tx = await t.junction.transactions.get(id);
    if (tx === null) throw new Error(`transaction ${id} is not stored`);
    return { event, tx };
  }

  const path = (side: 'p' | 's' | 'm', fault: Fault, framing: Framing) => `/${side}/${fault}/${framing}/${++counter}`;
  const ERRORS: Record<Exclude<Fault, 'ok'>, RegExp> = {
    reset: /in the middle of its answer/,
    stall: new RegExp(`sent no more of its answer within ${TIMEOUT_MS} ms`),
    leave: /the client closed the connection before/,
  };

  describe('the primary route', () => {
    it.each(['reset', 'stall'] as const)('%s in a small body: the client gets an error answer and the transaction is Failed', async (fault) => {
      const p = path('p', fault, 'small');
      const seen = await call(p);
      expect(seen).toMatchObject({ status: fault === 'stall' ? 504 : 500, complete: true });
      expect(JSON.parse(seen.body)).toMatchObject({ error: { code: fault === 'stall' ? 'ROUTE_TIMEOUT' : 'ROUTE_FAILED' } });
      const { event, tx } = await finished(p);
      expect(event).toMatchObject({ status: 'Failed', responseStatus: seen.status });
      expect(tx).toMatchObject({ status: 'Failed', response: { status: seen.status }, autoRetry: false });
      expect(tx.error?.message).toMatch(ERRORS[fault]);
    });

    it.each([
      ['reset', 'large'],
      ['reset', 'chunked'],
      ['stall', 'large'],
      ['stall', 'chunked'],
    ] as const)('%s in a %s body: the client sees a broken answer, and the transaction is Failed with what arrived', async (fault, framing) => {
      const p = path('p', fault, framing);
      const seen = await call(p);
      // Junction had sent the headers already, so the client sees the upstream's 200 and then a broken body.
      expect(seen).toMatchObject({ status: 200, complete: false });
      expect(seen.body.length).toBeLessThan(SIZE[framing]);
      const { event, tx } = await finished(p);
      expect(event).toMatchObject({ status: 'Failed', responseStatus: 200 });
      expect(tx).toMatchObject({ status: 'Failed', response: { status: 200 }, autoRetry: false });
      expect(tx.error?.message).toMatch(ERRORS[fault]);
      // The body is stored up to where it broke.
      expect(tx.response?.body?.size).toBeGreaterThan(0);
      expect(tx.response?.body?.size).toBeLessThan(SIZE[framing]);
    });

    it.each(['small', 'large', 'chunked'] as const)('the client leaves while a %s answer is on its way: the transaction is Failed', async (framing) => {
      const p = path('p', 'leave', framing);
      const upstreamSent = firstPart(p);
      // A small answer is read whole before anything is sent, so that client leaves once the upstream sent half;
      // a streamed one leaves once the first bytes reached it.
      const seen = await call(p, (res) => {
        if (framing === 'small') return res === undefined ? upstreamSent : undefined;
        return res === undefined ? undefined : new Promise<void>((resolve) => res.once('data', () => resolve()));
      });
      expect(seen.complete).toBe(false);
      const { event, tx } = await finished(p);
      expect(event.status).toBe('Failed');
      expect(tx.status).toBe('Failed');
      expect(tx.error?.message).toMatch(ERRORS.leave);
    });
  });

  describe('a mediator (structured response) as the primary route', () => {
    it.each([
      ['reset', 'small'],
      ['reset', 'chunked'],
      ['stall', 'small'],
      ['stall', 'chunked'],
    ] as const)('%s in a %s structured answer: the client gets an error answer and the transaction is Failed', async (fault, framing) => {
      const p = path('m', fault, framing);
      const seen = await call(p);
      // A structured answer is read whole before anything is sent, so Junction can still answer with its own error.
      expect(seen).toMatchObject({ status: fault === 'stall' ? 504 : 500, complete: true });
      const { event, tx } = await finished(p);
      expect(event.status).toBe('Failed');
      expect(tx).toMatchObject({ status: 'Failed', response: { status: seen.status } });
      expect(tx.error?.message).toMatch(ERRORS[fault]);
    });
  });

  describe('a secondary route', () => {
    it.each([
      ['reset', 'small'],
      ['reset', 'large'],
      ['reset', 'chunked'],
      ['stall', 'small'],
      ['stall', 'large'],
      ['stall', 'chunked'],
    ] as const)('%s in a %s body: the client gets the primary\'s answer; Completed with error(s), the error on the route', async (fault, framing) => {
      const p = path('s', fault, framing);
      const seen = await call(p);
      expect(seen).toEqual({ status: 200, complete: true, body: 'fine' });
      const { event, tx } = await finished(p);
      expect(event).toMatchObject({ status: 'Completed with error(s)', responseStatus: 200 });
      expect(tx).toMatchObject({ status: 'Completed with error(s)', response: { status: 200 } });
      expect(tx.error).toBeUndefined();
      expect(tx.routes).toHaveLength(1);
      expect(tx.routes[0]).toMatchObject({ name: 'faulty', response: { status: 200 } });
      expect(tx.routes[0]?.error?.message).toMatch(ERRORS[fault]);
      expect(tx.routes[0]?.response?.body?.size).toBeLessThan(SIZE[framing]);
    });
  });

  it('leaves nothing Processing after a batch of mixed faults, good answers among them, without a restart', async () => {
    const faults: Fault[] = ['reset', 'stall', 'leave', 'ok'];
    const framings: Framing[] = ['small', 'large', 'chunked'];
    const calls: Promise<Seen>[] = [];
    const paths: string[] = [];
    for (let round = 0; round < 4; round++) {
      for (const side of ['p', 's'] as const) {
        for (const fault of faults) {
          for (const framing of framings) {
            if (side === 's' && fault === 'leave') continue;
            const p = path(side, fault, framing);
            paths.push(p);
            const upstreamSent = fault === 'leave' ? firstPart(p) : undefined;
            calls.push(call(p, upstreamSent === undefined ? undefined : (res) => (res === undefined ? upstreamSent : undefined)));
          }
        }
      }
    }
    const seen = await Promise.all(calls);
    expect(seen.filter((s) => s.complete && s.status === 200)).not.toHaveLength(0);
    const outcomes = await Promise.all(paths.map((p) => finished(p)));
    expect(await t.junction.transactions.count({ status: ['Processing'] })).toBe(0);
    // Good answers through good routes stay good.
    for (const [i, p] of paths.entries()) {
      if (p.startsWith('/p/ok/') || p.startsWith('/s/ok/')) expect(outcomes[i]?.tx.status, p).toBe('Successful');
      else if (p.startsWith('/s/')) expect(outcomes[i]?.tx.status, p).toBe('Completed with error(s)');
      else expect(outcomes[i]?.tx.status, p).toBe('Failed');
    }
  }, 60_000);

  it('gives up on a client that stops reading a streamed answer, and finishes the transaction as Failed', async () => {
    // 32 MB is more than the kernel buffers of both sockets hold, so Junction has to wait on the client.
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const stalled = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        Readable.from((function* () {
          for (let i = 0; i < 512; i++) yield chunk;
        })()).pipe(res);
      });
    });
    try {
      await channel({ name: 'stalled-reader', urlPattern: '^/slow-reader$', authType: 'public', timeout: TIMEOUT_MS, routes: [{ name: 'big', host: '127.0.0.1', port: stalled.port, primary: true }] });
      const url = new URL('/slow-reader', t.httpUrl);
      const req = request(url, (res) => res.pause());
      req.on('error', () => undefined);
      req.end();
      try {
        const { event, tx } = await finished('/slow-reader');
        expect(event.status).toBe('Failed');
        expect(tx.error?.message).toMatch(/the client stopped reading|nothing moved/);
      } finally {
        req.destroy();
      }
    } finally {
      await stalled.close();
    }
  });
});
