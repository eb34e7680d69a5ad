/**
 * Routes that wait for the primary (OpenHIM's `waitPrimaryResponse` and `statusCodesCheck`): sent only after the
 * primary answered, and only when its status passes the check; a route not sent is not part of the transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

describe('routes that wait for the primary route', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  const events: string[] = [];
  const upstreams: Upstream[] = [];

  /** An upstream answering `status` after `delayMs`, logging when it received and when it answered. */
  async function upstream(name: string, status: number, delayMs = 0): Promise<Upstream> {
    const up = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        events.push(`${name} got ${body}`);
        setTimeout(() => {
          events.push(`${name} answered`);
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(name);
        }, delayMs);
      });
    });
    upstreams.push(up);
    return up;
  }

  async function channel(name: string, primary: Upstream, waiting: Upstream, check?: string): Promise<void> {
    const routes = [
      { name: 'primary', host: '127.0.0.1', port: primary.port, primary: true },
      { name: 'waiting', host: '127.0.0.1', port: waiting.port, waitPrimaryResponse: true, ...(check === undefined ? {} : { statusCodesCheck: check }) },
    ];
    const res = await t.request('/channels', { method: 'POST', headers: admin, json: { name, urlPattern: `^/${name}$`, authType: 'public', routes } });
    if (res.status !== 201) throw new Error(res.text);
  }

  async function send(name: string): Promise<{ status: number; routes: string[] }> {
    const res = await fetch(`${t.httpUrl}/${name}`, { method: 'POST', body: `to ${name}`, headers: { 'content-type': 'text/plain' } });
    await res.text();
    const tx = await completedTransaction(t, res.headers.get('x-openhim-transactionid'));
    return { status: res.status, routes: (tx.routes ?? []).map((r) => `${r.name}:${r.response?.status ?? 'none'}`) };
  }

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    await channel('ordered', await upstream('slow-primary', 201, 150), await upstream('after', 200));
    await channel('matching', await upstream('p-ok', 201), await upstream('sent', 200), '2**');
    await channel('not-matching', await upstream('p-missing', 404), await upstream('never', 200), '200, 201');
  });
  afterAll(async () => {
    await t.destroy();
    await Promise.all(upstreams.map((u) => u.close()));
  });

  it('sends a waiting route only after the primary has answered, with the request body', async () => {
    const result = await send('ordered');
    expect(result).toEqual({ status: 201, routes: ['waiting:200'] });
    expect(events.filter((e) => e.startsWith('slow-primary') || e.startsWith('after'))).toEqual(['slow-primary got to ordered', 'slow-primary answered', 'after got to ordered', 'after answered']);
  });

  it('sends it when the primary status passes statusCodesCheck, and leaves it out when it does not', async () => {
    expect(await send('matching')).toEqual({ status: 201, routes: ['waiting:200'] });
    expect(events).toContain('sent got to matching');
    const skipped = await send('not-matching');
    expect(skipped).toEqual({ status: 404, routes: [] });
    expect(events.some((e) => e.startsWith('never'))).toBe(false);
  });
});
