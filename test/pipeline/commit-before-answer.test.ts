/**
 * Issue 12 item 3, in process: the outcome is in the log before the client has its whole answer. A client that has
 * read its answer finds the transaction final at once; when a secondary route is still running, it finds it
 * "answered" (still Processing, with the status start-up recovery would give it), and final once the route answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';

describe('the outcome is committed before the answer leaves', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let up: Upstream;
  /** Answers of the held secondary route, released by the test. */
  const held: (() => void)[] = [];

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    up = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        const url = req.url ?? '';
        if (url === '/held') {
          held.push(() => res.end('late'));
          return;
        }
        res.writeHead(url.startsWith('/fail') ? 503 : 200, { 'content-type': 'text/plain' });
        res.end(url.startsWith('/large') ? 'l'.repeat(300_000) : `answer ${url}`);
      });
    });
    const route = (name: string, port: number, extra: Record<string, unknown> = {}) => ({ name, host: '127.0.0.1', port, primary: true, ...extra });
    const channels = [
      { name: 'plain', urlPattern: '^/(small|large|fail)/.*$', authType: 'public', routes: [route('up', up.port)] },
      { name: 'nowhere', urlPattern: '^/nowhere/.*$', authType: 'public', routes: [route('closed', 1)] },
      { name: 'with-secondary', urlPattern: '^/second/.*$', authType: 'public', routes: [route('up', up.port), route('held', up.port, { primary: false, path: '/held' })] },
    ];
    for (const json of channels) expect((await t.request('/channels', { method: 'POST', headers: admin, json })).status).toBe(201);
  });

  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await t.destroy();
    await up.close();
  });

  it.each([
    ['/small', 200, 'Successful'],
    ['/large', 200, 'Successful'],
    ['/fail', 503, 'Failed'],
    ['/nowhere', 500, 'Failed'],
  ] as const)('%s: once the client has its answer (%i), the transaction is %s in the log, every time', async (prefix, status, stored) => {
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${t.httpUrl}${prefix}/${i}`, { method: 'POST', body: `{"n":${i}}`, headers: { 'content-type': 'application/json' } });
      await res.arrayBuffer();
      expect(res.status).toBe(status);
      // Read at once, without waiting: it must already be final.
      const tx = await t.junction.transactions.get(res.headers.get('x-openhim-transactionid') ?? '');
      expect(tx?.status, `${prefix}/${i}`).toBe(stored);
      expect(tx?.response?.status).toBe(status);
    }
  });

  it('with a secondary route still running, records the answer first (Processing, with the status recovery would give) and completes when it answers', async () => {
    const res = await fetch(`${t.httpUrl}/second/1`);
    expect(await res.text()).toBe('answer /second/1');
    const id = res.headers.get('x-openhim-transactionid') ?? '';
    const answered = await t.junction.transactions.get(id);
    expect(answered).toMatchObject({ status: 'Processing', statusIfInterrupted: 'Completed with error(s)', response: { status: 200 } });
    expect(answered?.routes).toHaveLength(1);
    expect(answered?.routes[0]?.name).toBe('held');
    expect(answered?.routes[0]?.response).toBeUndefined();
    // Recovery's note is internal: the API shows the transaction as Processing, without it.
    const shown = await t.request(`/transactions/${id}`, { headers: admin });
    expect(shown.body).toMatchObject({ _id: id, status: 'Processing' });
    expect(shown.body).not.toHaveProperty('statusIfInterrupted');

    const release = await until('the secondary to be asked', () => held.shift());
    release();
    const final = await until('the final record', async () => {
      const tx = await t.junction.transactions.get(id);
      return tx?.status === 'Processing' ? undefined : tx;
    });
    expect(final).toMatchObject({ status: 'Successful', routes: [{ name: 'held', response: { status: 200 } }] });
    expect(final?.statusIfInterrupted).toBeUndefined();
  });
});
