/** The audit listeners inside a whole Junction: started with it, shown on /about, counted, refused start on a taken port. */
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AboutAnswer } from '../../service/contracts/api.js';
import { frameOctetCounted } from '../../service/domain/codecs/syslog-framing.js';
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { freePorts } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { auditSyslog, closedOf, tcpPeer } from './listener-helpers.js';

describe('audit listeners in the service', () => {
  let t: TestJunction | undefined;
  let holder: Server | undefined;
  afterEach(async () => {
    await t?.destroy();
    t = undefined;
    holder?.close();
    holder = undefined;
  });

  it('start with the service, show on /about for admins, count what arrives, and stop with it', async () => {
    const [udp, tcp, tls] = (await freePorts(3)) as [number, number, number];
    t = await startJunction({ auditing: { host: '127.0.0.1', servers: { udp: { enabled: true, port: udp }, tcp: { enabled: true, port: tcp }, tls: { enabled: true, port: tls } } } });
    const admin = { authorization: await unlockRoot(t) };
    const about = await t.inject('/about', { headers: admin });
    expect((about.body as AboutAnswer).ports?.filter((p) => p.purpose === 'audit')).toEqual([
      { purpose: 'audit', protocol: 'udp', port: udp },
      { purpose: 'audit', protocol: 'tcp', port: tcp },
      { purpose: 'audit', protocol: 'tls', port: tls },
    ]);
    const socket = await tcpPeer(tcp);
    socket.end(frameOctetCounted(auditSyslog(1)));
    const junction = t.junction;
    await until('the message counted', () => (junction.auditListenerStats().find((s) => s.transport === 'tcp')?.received === 1 ? true : undefined));
    await closedOf(socket);
    await until('the message stored', () => (junction.auditIntakeStats()?.stored === 1 ? true : undefined));
    const counts = ((await t.inject('/about', { headers: admin })).body as AboutAnswer).audits;
    expect(counts?.intake).toEqual({ received: 1, stored: 1, malformed: 0, failed: 0, dropped: 0, inFlight: 0 });
    expect(counts?.listeners.find((l) => l.transport === 'tcp')).toMatchObject({ port: tcp, received: 1, malformedFraming: 0, refusedConnections: 0, tooLarge: 0 });
    expect(counts?.forwarding).toBeUndefined();
    const exposition = await junction.prometheus.exposition();
    expect(exposition).toContain('junction_audit_messages_total{outcome="stored"} 1');
    expect(exposition).toContain(`junction_audit_listener_events_total{transport="tcp",port="${tcp}",event="received"} 1`);
    expect(exposition).toContain('junction_audit_writes_in_flight 0');
    await t.stop();
    await expect(tcpPeer(tcp)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('lists no audit ports when none is enabled', async () => {
    t = await startJunction();
    const admin = { authorization: await unlockRoot(t) };
    const about = await t.inject('/about', { headers: admin });
    expect((about.body as AboutAnswer).ports?.filter((p) => p.purpose === 'audit')).toEqual([]);
    expect((about.body as AboutAnswer).audits).toMatchObject({ listeners: [], intake: { received: 0, stored: 0 } });
    expect(t.junction.auditListenerStats()).toEqual([]);
  });

  it('fails to start naming the setting when an audit port is taken', async () => {
    const [tcp] = (await freePorts(1)) as [number];
    holder = createServer();
    const h = holder;
    await new Promise<void>((resolve) => h.listen(tcp, '127.0.0.1', resolve));
    const dataDir = await tempDir();
    await expect(startJunction({ auditing: { host: '127.0.0.1', servers: { tcp: { enabled: true, port: tcp } } } }, { dataDir })).rejects.toThrow(
      `the TCP audit listener cannot listen on 127.0.0.1:${tcp} (auditing.servers.tcp.port): the port is already in use by another program`,
    );
    await rm(dataDir, { recursive: true, force: true });
  });
});
