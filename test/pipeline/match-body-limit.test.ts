/**
 * Content matching reads at most `router.matchBodyLimitBytes` of a request body. A longer body is refused with 413,
 * and the connection stays usable: before issue 13 the reader's early exit detached and destroyed the request, so
 * the 413 went out but the next request on that keep-alive connection hung until the client gave up.
 */
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

const LIMIT = 1024;

describe('a request body longer than content matching reads', () => {
  let t: TestJunction;
  let upstream: Upstream;
  // One socket, kept alive: the second request must travel on the connection the first one was refused on.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  function post(body: Buffer): Promise<{ status: number; text: string; reused: boolean }> {
    return new Promise((resolve, reject) => {
      const req = request(`${t.httpUrl}/hl7`, { method: 'POST', agent, timeout: 3000, headers: { 'content-type': 'text/plain', 'content-length': body.length } }, (res) => {
        void readBody(res).then((text) => resolve({ status: res.statusCode ?? 0, text, reused: req.reusedSocket }));
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 3 s')));
      req.on('error', reject);
      req.end(body);
    });
  }

  beforeAll(async () => {
    t = await startJunction({ router: { matchBodyLimitBytes: LIMIT } });
    const admin = { authorization: await unlockRoot(t) };
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then((text) => res.end(`got ${text.length} bytes`));
    });
    const created = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'adt', urlPattern: '^/hl7$', authType: 'public', matchContentRegex: '^MSH', routes: [{ name: 'p', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    agent.destroy();
    await t.destroy();
    await upstream.close();
  });

  it('is refused with 413, and the next request on the same connection is answered', async () => {
    const refused = await post(Buffer.alloc(200 * LIMIT, 'MSH|'));
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'BODY_TOO_LARGE', message: `Content matching reads at most ${LIMIT} bytes of a request body` } });
    const next = await post(Buffer.from('MSH|^~\\&|LAB'));
    expect(next).toEqual({ status: 200, text: 'got 12 bytes', reused: true });
  });
});
