/**
 * The management API and the transaction ports of a whole Junction under issue 33's connection limits: one address
 * holds only its share, an idle TLS session gets 408 in the error shape, the refusals show in /metrics.
 */
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, ROOT_EMAIL } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';
import { httpGet, peers } from '../transports/peers.js';
import type { Peer } from '../transports/peers.js';

const PASSWORD = 'a-long-test-password';

/** A value of the refusal counter in an exposition (0 when absent). */
function counted(text: string, listener: string, reason: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`junction_inbound_refusals_total{listener="${listener}",reason="${reason}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('connection limits on a running Junction', () => {
  let t: TestJunction;
  const held: Peer[] = [];
  beforeAll(async () => {
    t = await startJunction({ connections: { maxPerAddress: 4, headTimeoutSeconds: 1, handshakeTimeoutSeconds: 1 }, adminPassword: PASSWORD });
  });
  afterAll(async () => {
    for (const p of held) p.socket.destroy();
    await t.destroy();
  });

  it('lets one address hold only its share of the API while others are served', async () => {
    const port = Number(new URL(t.url).port);
    const attacker = await peers(port, '127.0.0.2', 30);
    held.push(...attacker);
    await until('the refused connections to close', () => (attacker.filter((p) => !p.closed).length <= 4 ? true : undefined), 10_000);
    // The four admitted ones are closed later by the handshake timeout; the other 26 were refused at once.
    // Every attacker connection was refused, is one of the four held, or was admitted and closed by a deadline since.
    const text = await t.junction.prometheus.registry.metrics();
    expect(counted(text, 'api', 'per_address')).toBeGreaterThanOrEqual(26 - counted(text, 'api', 'handshake_timeout'));
    const auth = Buffer.from(`${ROOT_EMAIL}:${PASSWORD}`).toString('base64');
    const me = await t.request('/me', { headers: { authorization: `Basic ${auth}` } });
    expect(me.status).toBe(200);
    for (const p of attacker) p.socket.destroy();
  });

  it('answers 408 in the error shape to a TLS session that never sends its request', async () => {
    const port = Number(new URL(t.url).port);
    const answer = await new Promise<string>((resolve, reject) => {
      const parts: Buffer[] = [];
      const socket = tlsConnect({ host: '127.0.0.1', port, ca: t.certificate, servername: 'localhost' });
      const timer = setTimeout(() => reject(new Error('not closed within 10 s')), 10_000);
      socket.on('data', (chunk: Buffer) => parts.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(parts).toString('utf8'));
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'REQUEST_TIMEOUT', details: { headTimeoutMs: 1000 } } });
  });

  it('closes an API connection whose TLS handshake never starts, after connections.handshakeTimeoutSeconds', async () => {
    const handshakeTimeouts = async () => Number(/junction_inbound_refusals_total\{listener="api",reason="handshake_timeout"\} (\d+)/.exec(await t.junction.prometheus.registry.metrics())?.[1] ?? 0);
    const before = await handshakeTimeouts();
    const [raw] = await peers(Number(new URL(t.url).port), '127.0.0.8', 1);
    held.push(raw!);
    const closed = await Promise.race([raw!.done.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000))]);
    expect(closed).toBe(true);
    await until('the handshake timeout to be counted', async () => ((await handshakeTimeouts()) === before + 1 ? true : undefined), 5_000);
  });

  it('limits the HTTP transaction port per address too, and counts the refusals for Prometheus', async () => {
    const port = Number(new URL(t.httpUrl).port);
    const attacker = await peers(port, '127.0.0.2', 20);
    held.push(...attacker);
    await until('the refused connections to close', () => (attacker.filter((p) => !p.closed).length <= 4 ? true : undefined), 10_000);
    // Served (no channel matches: 404), not refused.
    expect(await httpGet(port, '127.0.0.1')).toBe('HTTP/1.1 404 Not Found');
    const text = await t.junction.prometheus.registry.metrics();
    expect(counted(text, 'http', 'per_address')).toBeGreaterThanOrEqual(16 - counted(text, 'http', 'head_timeout'));
    expect(counted(text, 'http', 'per_address')).toBeGreaterThan(0);
    expect(t.logs.some((l) => l.msg === 'inbound connection limits' && typeof l.maxTotal === 'number')).toBe(true);
  });
});
