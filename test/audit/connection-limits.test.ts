/**
 * The TCP and TLS audit listeners under issue 33's connection limits: one address holds only its share while another
 * sender's messages arrive (sent by util-linux `logger`, a real syslog client), a silent connection and a sender
 * trickling a message are closed by their deadlines.
 */
import { execFile } from 'node:child_process';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { Admission } from '../../service/transports/admission.js';
import { until } from '../helpers/wait.js';
import { peer, peers, trickle } from '../transports/peers.js';
import type { Peer } from '../transports/peers.js';
import { auditSyslog, startListeners } from './listener-helpers.js';
import type { Started } from './listener-helpers.js';

async function refusals(registry: Registry, listener: string, reason: string): Promise<number> {
  const metric = await registry.getSingleMetric('junction_inbound_refusals_total')?.get();
  return metric?.values.find((v) => v.labels.listener === listener && v.labels.reason === reason)?.value ?? 0;
}

describe('audit listeners: connection limits', () => {
  let started: Started | undefined;
  const held: Peer[] = [];
  afterEach(async () => {
    for (const p of held.splice(0)) p.socket.destroy();
    await started?.listeners.stop();
    started = undefined;
  });

  async function start(limits: { silentTimeoutMs?: number; frameTimeoutMs?: number } = {}) {
    const registry = new Registry();
    started = await startListeners({
      enabled: ['tcp'],
      limits: { maxConnections: 20, maxConnectionsPerAddress: 3, silentTimeoutMs: 30_000, frameTimeoutMs: 30_000, ...limits },
      admission: (logger) => new Admission({ perAddress: 1000, total: 10_000, logger, registry }),
    });
    return { ...started, registry };
  }

  it('keeps one address to its share while another sender (util-linux logger) is heard', async () => {
    const { ports, intake, lines, registry } = await start();
    const attacker = await peers(ports.tcp, '127.0.0.2', 40);
    held.push(...attacker);
    await until('the refused connections to close', () => (attacker.filter((p) => !p.closed).length <= 3 ? true : undefined), 10_000);
    expect(attacker.filter((p) => !p.closed)).toHaveLength(3);
    await new Promise<void>((resolve, reject) => {
      execFile('logger', ['--tcp', '--octet-count', '-n', '127.0.0.1', '-P', String(ports.tcp), '--rfc5424', '-t', 'ehr', 'IHE+RFC-3881 audit from the ward'], (err: Error | null) => (err === null ? resolve() : reject(err)));
    });
    await until('the message from logger', () => (intake.got.some((m) => m.text.includes('audit from the ward')) ? true : undefined), 5_000);
    expect(await refusals(registry, 'audit-tcp', 'per_address')).toBe(37);
    expect(lines.filter((l) => l.reason === 'per_address')).toHaveLength(1);
  });

  it('closes a connection that never sends, and one that trickles a message past the frame deadline', async () => {
    const { ports, intake, registry } = await start({ silentTimeoutMs: 300, frameTimeoutMs: 300 });
    const silent = await peer(ports.tcp, '127.0.0.2');
    const slow = await peer(ports.tcp, '127.0.0.3');
    held.push(silent, slow);
    trickle(slow.socket, Buffer.from(`${auditSyslog(1)}\n`), 25);
    const within = (p: Peer) => Promise.race([p.done.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
    expect(await within(silent)).toBe(true);
    expect(await within(slow)).toBe(true);
    expect(intake.got).toHaveLength(0);
    expect(await refusals(registry, 'audit-tcp', 'silent')).toBe(1);
    expect(await refusals(registry, 'audit-tcp', 'frame_timeout')).toBe(1);
  });
});
