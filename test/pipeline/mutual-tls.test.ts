import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, fetch } from 'undici';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

describe('mutual TLS on the HTTPS transaction port', () => {
  let t: TestJunction;
  let upstream: Upstream;
  const labCert = generateSelfSigned('lab.clinic.example');
  const strangerCert = generateSelfSigned('lab.clinic.example');
  const radiologyCert = generateSelfSigned('radiology.clinic.example');

  beforeAll(async () => {
    t = await startJunction();
    const admin = { authorization: await unlockRoot(t) };
    upstream = await httpUpstream((_req, res) => res.end('secure ok'));
    const client = await t.request('/clients', {
      method: 'POST',
      headers: admin,
      json: { clientID: 'lab', name: 'Lab', clientDomain: 'lab.clinic.example', certificate: labCert.cert },
    });
    expect(client.status).toBe(201);
    // Registered as OpenHIM's console does: by the SHA-1 fingerprint of a certificate in the keystore, lower case here.
    const sha1 = new X509Certificate(radiologyCert.cert).fingerprint.toLowerCase();
    const byFingerprint = await t.request('/clients', {
      method: 'POST',
      headers: admin,
      json: { clientID: 'radiology', name: 'Radiology', clientDomain: 'radiology.clinic.example', certFingerprint: sha1 },
    });
    expect(byFingerprint.status).toBe(201);
    const channel = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'lab-only', urlPattern: '^/lab$', allow: ['lab', 'radiology'], routes: [{ name: 'p', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(channel.status).toBe(201);
  });
  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  async function call(cert?: { cert: string; key: string }) {
    const dispatcher = new Agent({ connect: { ca: t.certificate, servername: 'localhost', ...(cert ?? {}) } });
    try {
      const res = await fetch(`${t.httpsUrl}/lab`, { dispatcher });
      return { status: res.status, text: await res.text() };
    } finally {
      await dispatcher.close();
    }
  }

  it('admits a client by its registered certificate whose CN is its domain', async () => {
    expect(await call(labCert)).toEqual({ status: 200, text: 'secure ok' });
  });

  it('admits a client registered by its certificate\'s SHA-1 fingerprint, as OpenHIM\'s console registers one', async () => {
    expect(await call(radiologyCert)).toEqual({ status: 200, text: 'secure ok' });
  });

  it('refuses an unregistered certificate with the same CN, and a caller without one', async () => {
    expect((await call(strangerCert)).status).toBe(401);
    expect((await call()).status).toBe(401);
  });
});
