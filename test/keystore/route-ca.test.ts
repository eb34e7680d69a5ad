/** A CA added through the keystore is trusted by HTTPS routes at once, and no longer once removed (no restart). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpsUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

describe('trusted CAs for HTTPS routes', () => {
  const downstreamTls = generateSelfSigned('localhost');
  let t: TestJunction;
  let admin: { authorization: string };
  let secure: Upstream;

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    secure = await httpsUpstream(downstreamTls, (_req, res) => res.end('secure ok'));
    const res = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'secure', urlPattern: '^/secure$', authType: 'public', routes: [{ name: 'p', host: 'localhost', port: secure.port, secured: true, primary: true }] },
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await t.destroy();
    await secure.close();
  });

  it('refuses the untrusted upstream, reaches it right after its CA is added, and refuses it again once removed', async () => {
    expect((await fetch(`${t.httpUrl}/secure`)).status).toBe(500);
    const added = await t.request('/keystore/ca/cert', { method: 'POST', headers: admin, json: { cert: downstreamTls.cert } });
    expect(added.status).toBe(201);
    const ok = await fetch(`${t.httpUrl}/secure`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('secure ok');
    const id = (added.body as { added: { _id: string }[] }).added[0]?._id ?? '';
    expect((await t.request(`/keystore/ca/${id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    expect((await fetch(`${t.httpUrl}/secure`)).status).toBe(500);
  });
});
