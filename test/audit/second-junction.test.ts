/**
 * Junction's own audit events (start, login, stop) sent to a second Junction acting as the audit repository, over TCP
 * and over TLS with node authentication both ways: the repository requires the sender's certificate, and the sender
 * checks the repository's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { freePorts } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

describe('audit events sent to another Junction', () => {
  const running: TestJunction[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const t of running.splice(0)) await t.destroy();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it.each(['tcp', 'tls'] as const)('arrive over %s as start, login and stop events', async (transport) => {
    dir = await mkdtemp(join(tmpdir(), 'junction-atna-'));
    const files = { repoCert: join(dir, 'repo-cert.pem'), repoKey: join(dir, 'repo-key.pem'), senderCert: join(dir, 'sender-cert.pem'), senderKey: join(dir, 'sender-key.pem') };
    const repoPair = generateSelfSigned('audit-repository');
    const senderPair = generateSelfSigned('clinic-junction');
    await Promise.all([writeFile(files.repoCert, repoPair.cert), writeFile(files.repoKey, repoPair.key), writeFile(files.senderCert, senderPair.cert), writeFile(files.senderKey, senderPair.key)]);

    const [tcp, tls] = (await freePorts(2)) as [number, number];
    const repo = await startJunction({
      auditing: { host: '127.0.0.1', servers: { tcp: { enabled: true, port: tcp }, tls: { enabled: true, port: tls } } },
      tls: { certFile: files.repoCert, keyFile: files.repoKey, trustedCAFiles: [files.senderCert] },
    });
    running.push(repo);

    const source = `clinic-${transport}`;
    const sender = await startJunction({
      auditEvents: { interface: transport, host: '127.0.0.1', port: transport === 'tcp' ? tcp : tls, auditSourceID: source },
      tls: { certFile: files.senderCert, keyFile: files.senderKey, trustedCAFiles: [files.repoCert] },
    });
    running.push(sender);
    await unlockRoot(sender);
    await sender.stop();

    const typesOf = async () => (await repo.junction.audits.page({ auditSourceID: source }, { skip: 0, limit: 100 })).map((a) => a.eventIdentification.eventTypeCode?.code ?? '');
    await until('start, login and stop stored by the repository', async () => {
      const types = await typesOf();
      return types.includes('110120') && types.includes('110122') && types.includes('110121') ? types : undefined;
    });
    const stored = await repo.junction.audits.page({ auditSourceID: source }, { skip: 0, limit: 100 });
    const login = stored.find((a) => a.eventIdentification.eventTypeCode?.code === '110122' && a.eventIdentification.eventOutcomeIndicator === '0');
    expect(login?.activeParticipant.some((p) => p.userID === 'root@junction.local')).toBe(true);
    // Received as syslog over the wire, not written in-process.
    expect(login?.rawMessage).toMatch(/^<\d+>1 \S+ \S+ junction /);
    expect(repo.junction.auditListenerStats().find((s) => s.transport === transport)?.received).toBeGreaterThanOrEqual(3);
  });
});
