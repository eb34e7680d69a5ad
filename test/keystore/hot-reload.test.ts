/**
 * The keystore over real TLS: a server certificate uploaded through the API is served by the API, the HTTPS
 * transaction port, a tls channel and the TLS audit listener without a restart; a mismatched upload changes nothing;
 * a CA added at runtime is accepted for mutual TLS at once; the key never leaves; a restart keeps the keystore.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { freePorts } from '../helpers/process.js';
import { issuedClientCertificate, listeningChannel } from '../messages/hl7-peers.js';

/** The SHA-256 fingerprint a TLS client sees on a port (the chain is not judged here: only which certificate). */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      socket.destroy();
      resolve(fp);
    });
    socket.once('error', reject);
  });
}

/** Connects to a TLS port with a client certificate and resolves once the connection has closed. */
function tlsVisit(port: number, options: ConnectionOptions): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false, ...options });
    socket.on('error', () => undefined);
    socket.once('secureConnect', () => socket.end());
    socket.once('close', () => resolve());
  });
}

describe('the keystore applied without a restart', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let ports: { api: number; https: number; channel: number; audit: number };
  const answers: string[] = [];

  const call = async (path: string, init: Parameters<TestJunction['request']>[1] = {}) => {
    const res = await t.request(path, { ...init, headers: { ...admin, ...(init.headers as Record<string, string> | undefined) } });
    answers.push(res.text);
    return res;
  };
  const served = async () => ({
    api: await servedFingerprint(ports.api),
    https: await servedFingerprint(ports.https),
    channel: await servedFingerprint(ports.channel),
    audit: await servedFingerprint(ports.audit),
  });
  const everywhere = (fp: string) => ({ api: fp, https: fp, channel: fp, audit: fp });
  const refusals = () => t.junction.auditListenerStats().find((s) => s.transport === 'tls')?.refusedConnections ?? 0;
  /** Whether the TLS audit listener (requireClientCertificate) admits a sender with this certificate: its refusals are counted before it closes. */
  const auditAccepts = async (options: ConnectionOptions) => {
    const before = refusals();
    await tlsVisit(ports.audit, options);
    return refusals() === before;
  };

  beforeAll(async () => {
    const [auditPort] = await freePorts(1);
    t = await startJunction({ auditing: { host: '127.0.0.1', servers: { tls: { enabled: true, port: auditPort ?? 0 } } } });
    admin = { authorization: await unlockRoot(t) };
    const channel = await listeningChannel(t, admin, 9, 'tls for keystore', { type: 'tls' });
    ports = { api: Number(new URL(t.url).port), https: Number(new URL(t.httpsUrl).port), channel: channel.tcpPort, audit: auditPort ?? 0 };
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('serves the generated certificate on every listener at first', async () => {
    const first = t.junction.keystore.certificate().fingerprint256;
    expect(await served()).toEqual(everywhere(first));
    const cert = await call('/keystore/cert');
    expect(cert.status).toBe(200);
    expect(cert.body).toMatchObject({ fingerprint256: first, source: 'generated', watchFSForCert: false, pending: false });
    expect((cert.body as { fingerprint: string }).fingerprint).toMatch(/^([0-9A-F]{2}:){19}[0-9A-F]{2}$/);
  });

  it('stages a certificate without its key (a warning, nothing served changes), then serves the pair everywhere once the key arrives', async () => {
    const before = t.junction.keystore.certificate().fingerprint256;
    const next = generateSelfSigned('localhost');
    const certOnly = await call('/keystore/cert', { method: 'POST', json: { cert: next.cert } });
    expect(certOnly.status).toBe(201);
    const staged = certOnly.body as { applied: boolean; warning: string };
    expect(staged.applied).toBe(false);
    expect(staged.warning).toContain('does not belong to the certificate');
    expect(await served()).toEqual(everywhere(before));
    expect((await call('/keystore/validity')).body).toMatchObject({ valid: false, pending: true });

    // A key of another pair: still staged, still nothing served changes.
    const wrongKey = await call('/keystore/key', { method: 'POST', json: { key: generateSelfSigned('other').key } });
    expect(wrongKey.body).toMatchObject({ applied: false });
    expect(await served()).toEqual(everywhere(before));

    const key = await call('/keystore/key', { method: 'POST', json: { key: next.key } });
    expect(key.status).toBe(201);
    expect(key.body).toEqual({ applied: true });
    const now = t.junction.keystore.certificate().fingerprint256;
    expect(now).not.toBe(before);
    expect(await served()).toEqual(everywhere(now));
    expect((await call('/keystore/validity')).body).toEqual({ valid: true, pending: false });
    expect((await call('/about')).body).toMatchObject({ certificate: { fingerprint256: now, source: 'uploaded' } });
  });

  it('refuses bad input with a 400 naming the problem, and an unknown CA id with 404', async () => {
    const bad = await call('/keystore/cert', { method: 'POST', json: { cert: 'not a certificate' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Could not add server cert via the API');
    const badKey = await call('/keystore/key', { method: 'POST', json: { key: 'nope' } });
    expect(badKey.status).toBe(400);
    const ca = await call('/keystore/ca/cert', { method: 'POST', json: { cert: `${generateSelfSigned('a').cert}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n` } });
    expect(ca.status).toBe(400);
    expect(((await call('/keystore/ca')).body as unknown[]).length).toBe(0);
    expect((await call('/keystore/ca/0123456789abcdef01234567')).status).toBe(404);
    expect((await call('/keystore/ca/0123456789abcdef01234567', { method: 'DELETE' })).status).toBe(404);
  });

  it('accepts a client certificate on mutual TLS right after its CA is added, and refuses it again once removed', async () => {
    const client = issuedClientCertificate('ehr.clinic.example');
    const withCert = { cert: client.cert, key: client.key };
    expect(await auditAccepts(withCert)).toBe(false);

    const added = await call('/keystore/ca/cert', { method: 'POST', json: { cert: `${client.ca}\n${client.ca}` } });
    expect(added.status).toBe(201);
    const answer = added.body as { added: { _id: string }[]; skipped: unknown[] };
    // The same certificate twice in one chain: added once, the repeat skipped.
    expect(answer.added).toHaveLength(1);
    expect(answer.skipped).toHaveLength(1);
    const again = await call('/keystore/ca/cert', { method: 'POST', json: { cert: client.ca } });
    expect((again.body as { added: unknown[] }).added).toEqual([]);
    expect((again.body as { skipped: unknown[] }).skipped).toHaveLength(1);

    expect(await auditAccepts(withCert)).toBe(true);

    const id = answer.added[0]?._id ?? '';
    expect((await call(`/keystore/ca/${id}`)).status).toBe(200);
    expect((await call(`/keystore/ca/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await auditAccepts(withCert)).toBe(false);
  });

  it('generates a client certificate attached to a client and trusted, returning its key once', async () => {
    const created = await call('/clients', { method: 'POST', json: { clientID: 'ehr', name: 'EHR' } });
    expect(created.status).toBe(201);
    const made = await call('/certificates', { method: 'POST', json: { type: 'client', commonName: 'ehr.clinic.example', country: 'nz', organization: 'Clinic Ōtaki', days: 30, clientID: 'ehr' } });
    expect(made.status).toBe(201);
    const body = made.body as { certificate: string; key: string; info: { commonName: string; country: string; organization: string; fingerprint256: string }; clientID: string };
    expect(body.key).toContain('PRIVATE KEY');
    expect(body.info).toMatchObject({ commonName: 'ehr.clinic.example', country: 'NZ', organization: 'Clinic Ōtaki' });
    expect(body.clientID).toBe('ehr');
    const cas = (await call('/keystore/ca')).body as { fingerprint256: string }[];
    expect(cas.map((c) => c.fingerprint256)).toContain(body.info.fingerprint256);
    expect(await auditAccepts({ cert: body.certificate, key: body.key })).toBe(true);
    expect((await call('/certificates', { method: 'POST', json: { type: 'client', commonName: 'x', days: 1, clientID: 'nobody' } })).status).toBe(404);
    expect((await call('/certificates', { method: 'POST', json: { type: 'client', commonName: 'x', days: 0 } })).status).toBe(400);
  });

  it('never answers with the server key or passphrase, and keeps it sealed on disk', async () => {
    const { key } = t.junction.keystore.certificate();
    const keyBody = key.split('\n').slice(1, 3).join('');
    for (const text of answers) {
      // Generated client keys are returned once by design; the server's key never is.
      expect(text.includes(keyBody)).toBe(false);
    }
    const file = await readFile(join(t.dataDir, 'keystore', 'keystore.json'), 'utf8');
    expect(file).not.toContain('PRIVATE KEY');
    expect(file).not.toContain(keyBody);
    for (const line of t.logs) expect(JSON.stringify(line).includes(keyBody)).toBe(false);
  });

  it('keeps the keystore across a restart', async () => {
    const fp = t.junction.keystore.certificate().fingerprint256;
    const cas = t.junction.keystore.trustedCAs().length;
    await t.stop();
    const again = await startJunction({}, { dataDir: t.dataDir });
    try {
      expect(again.junction.keystore.certificate()).toMatchObject({ fingerprint256: fp, source: 'uploaded' });
      expect(again.junction.keystore.trustedCAs()).toHaveLength(cas);
      expect(await servedFingerprint(Number(new URL(again.url).port))).toBe(fp);
    } finally {
      await again.stop();
    }
  });
});
