import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { completedTransaction, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpsUpstream, httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

describe('HTTPS routes and failing upstreams through the pipeline', () => {
  const downstreamTls = generateSelfSigned('localhost');
  let t: TestJunction;
  let secure: Upstream;
  let resetting: Upstream;

  beforeAll(async () => {
    const dir = await tempDir();
    const caFile = join(dir, 'downstream-ca.pem');
    await writeFile(caFile, downstreamTls.cert);
    t = await startJunction({ tls: { trustedCAFiles: [caFile] } });
    const admin = { authorization: await unlockRoot(t) };
    secure = await httpsUpstream(downstreamTls, (req, res) => res.end(`secure ${req.url ?? ''}`));
    resetting = await httpUpstream((req) => req.socket.destroy());
    for (const body of [
      { name: 'secure', urlPattern: '^/secure/.*$', authType: 'public', routes: [{ name: 'p', host: 'localhost', port: secure.port, secured: true, primary: true, pathTransform: 's/secure/api/' }] },
      { name: 'reset', urlPattern: '^/reset$', authType: 'public', routes: [{ name: 'p', host: '127.0.0.1', port: resetting.port, primary: true }] },
    ]) {
      const res = await t.request('/channels', { method: 'POST', headers: admin, json: body });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await t.destroy();
    await secure.close();
    await resetting.close();
  });

  it('reaches an HTTPS route whose CA is in tls.trustedCAFiles, applying the path transform', async () => {
    const res = await fetch(`${t.httpUrl}/secure/Patient?id=1`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('secure /api/Patient?id=1');
  });

  it('answers 500 in the JSON error shape when the upstream resets the connection, and records it Failed', async () => {
    const res = await fetch(`${t.httpUrl}/reset`);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: 'ROUTE_FAILED' } });
    const id = res.headers.get('x-openhim-transactionid') ?? '';
    const tx = await completedTransaction(t, id);
    expect(tx).toMatchObject({ status: 'Failed', autoRetry: false });
  });

  it('refuses to start when a trusted CA file holds no certificate', async () => {
    const dir = await tempDir();
    const bad = join(dir, 'bad.pem');
    await writeFile(bad, 'not a certificate');
    await expect(startJunction({ tls: { trustedCAFiles: [bad] } })).rejects.toThrow(/holds no PEM certificate/);
  });
});
