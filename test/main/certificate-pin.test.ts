/** The pin follows a certificate the service starts serving after ready (a keystore upload), through the supervisor's state. */
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isCertificateMessage } from '../../main/supervisor.js';
import { decideCertificate } from '../../main/security.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { FIXTURES, testSupervisor } from './helpers.js';
import type { TestSupervisor } from './helpers.js';

const running: TestSupervisor[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.supervisor.stop()));
});

describe('a new API certificate', () => {
  it('accepts only a well-formed certificate message', () => {
    const fp = new X509Certificate(generateSelfSigned('localhost').cert).fingerprint256;
    expect(isCertificateMessage({ type: 'certificate', certificateFingerprint256: fp })).toBe(true);
    expect(isCertificateMessage({ type: 'certificate', certificateFingerprint256: 'AA:BB' })).toBe(false);
    expect(isCertificateMessage({ type: 'certificate' })).toBe(false);
    expect(isCertificateMessage(null)).toBe(false);
  });

  it('moves the pinned fingerprint: the new certificate is trusted, the old one no longer', async () => {
    const next = generateSelfSigned('localhost');
    const fp = new X509Certificate(next.cert).fingerprint256;
    const t = await testSupervisor(join(FIXTURES, 'ready.js'), { FIXTURE_API_URL: 'https://127.0.0.1:4321', FIXTURE_NEW_CERT: fp });
    running.push(t);
    t.supervisor.start();
    const moved = await t.waitFor((s) => s.phase === 'running' && s.ready.certificateFingerprint256 === fp, 'the new pin');
    expect(moved.phase === 'running' && moved.ready.apiUrl).toBe('https://127.0.0.1:4321');
    // The window pins what the running state says (main/window.ts update()).
    const pinned = moved.phase === 'running' ? { origin: 'https://127.0.0.1:4321', fingerprint256: moved.ready.certificateFingerprint256 } : null;
    expect(decideCertificate(pinned, { hostname: '127.0.0.1', pem: next.cert })).toBe('trust');
    expect(decideCertificate(pinned, { hostname: '127.0.0.1', pem: generateSelfSigned('localhost').cert })).toBe('refuse');
    expect(await t.logText()).toContain(`[shell] the service now serves the certificate ${fp}`);
  });
});
