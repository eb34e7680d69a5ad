/**
 * One host must not lock out a channel or a port (issue 33): another address holding hundreds of idle and trickling
 * connections, on an MLLP channel and on the HTTP transaction port, while legitimate senders are served; the deadlines
 * for a head or a frame, for silence and for a TLS handshake; the process-wide cap; refusals logged once per address.
 * Attackers connect from 127.0.0.2 (all of 127/8 is loopback on Linux), legitimate senders from 127.0.0.1 and others.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import type { Pipeline } from '../../service/pipeline/index.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import type { ServerCertificate } from '../../service/tls/server-certificate.js';
import { Admission } from '../../service/transports/admission.js';
import { TransactionPorts } from '../../service/transports/http.js';
import { ChannelListeners } from '../../service/transports/sockets.js';
import { memoryLogger } from '../helpers/logger.js';
import { until } from '../helpers/wait.js';
import { RecordingHandler, adt, channel, freePort, msaOf } from './fixtures.js';
import { httpGet, idleTlsSession, mllpRequest, peer, peers, trickle } from './peers.js';
import type { Peer } from './peers.js';

const pair = generateSelfSigned('localhost');
const certificate: ServerCertificate = { ...pair, source: 'generated', fingerprint256: '', validTo: new Date() };

const ATTACKER = '127.0.0.2';
const LEGITIMATE = ['127.0.0.1', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];

async function refusals(registry: Registry, listener: string, reason: string): Promise<number> {
  const metric = await registry.getSingleMetric('junction_inbound_refusals_total')?.get();
  return metric?.values.find((v) => v.labels.listener === listener && v.labels.reason === reason)?.value ?? 0;
}

const open = (all: Peer[]) => all.filter((p) => !p.closed && !p.socket.destroyed);

describe('connection limits on a tcp channel (MLLP)', () => {
  let listeners: ChannelListeners | undefined;
  const sockets: Peer[] = [];
  afterEach(async () => {
    for (const p of sockets.splice(0)) p.socket.destroy();
    await listeners?.stop();
    listeners = undefined;
  });

  async function listen(limits: { silentTimeoutMs?: number; frameTimeoutMs?: number; handshakeTimeoutMs?: number } = {}, fields: Partial<ChannelRecord> = {}) {
    const port = await freePort();
    const record = channel({ tcpPort: port, ...fields });
    const handler = new RecordingHandler();
    const log = memoryLogger();
    const registry = new Registry();
    const admission = new Admission({ perAddress: 1000, total: 10_000, logger: log.logger, registry });
    listeners = new ChannelListeners({
      handler,
      source: () => Promise.resolve([record]),
      certificate,
      trustedCAs: [],
      limits: { maxMessageBytes: 1024 * 1024, idleTimeoutMs: 30_000, maxConnectionsPerChannel: 40, maxConnectionsPerAddress: 8, silentTimeoutMs: 30_000, frameTimeoutMs: 30_000, ...limits },
      admission,
      logger: log.logger,
    });
    await listeners.start();
    return { port, record, handler, lines: log.lines, registry, label: `channel:${record.name}` };
  }

  it('serves five legitimate senders while one address holds hundreds of idle and trickling connections', async () => {
    const { port, lines, registry, label } = await listen();
    // 200 idle connections and 20 trickling ones from one address: far beyond the channel's 40 and the address's 8.
    const idle = await peers(port, ATTACKER, 200);
    const tricklers = await peers(port, ATTACKER, 20);
    sockets.push(...idle, ...tricklers);
    for (const t of tricklers) if (!t.closed) trickle(t.socket, frameMllp(Buffer.from(adt('SLOW'))), 200);
    // The address keeps only its share; everything beyond it is closed by the server.
    await until('the refused connections to close', () => (open([...idle, ...tricklers]).length <= 8 ? true : undefined), 10_000);
    expect(open([...idle, ...tricklers]).length).toBe(8);

    for (const [i, address] of LEGITIMATE.entries()) {
      const reply = await mllpRequest(port, address, frameMllp(Buffer.from(adt(`LAB-${i}`))));
      expect(reply, `legitimate sender ${address}`).not.toBeNull();
      expect(msaOf(reply ?? Buffer.alloc(0))).toEqual({ code: 'AA', controlId: `LAB-${i}` });
    }

    expect(await refusals(registry, label, 'per_address')).toBe(212);
    // One line for 212 refusals: the log is not the attacker's to flood.
    const logged = lines.filter((l) => l.reason === 'per_address');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ listener: label, peer: ATTACKER, limit: 8, level: 40 });
  });

  it('closes a sender that trickles a frame past the frame deadline, with an AR naming why', async () => {
    const { port, registry, label, handler } = await listen({ frameTimeoutMs: 300 });
    const slow = await peer(port, ATTACKER);
    sockets.push(slow);
    // The MSH arrives at once, the rest a byte at a time.
    const framed = frameMllp(Buffer.from(adt('TRICKLE')));
    const mshEnd = framed.indexOf(0x0d) + 1;
    slow.socket.write(framed.subarray(0, mshEnd));
    trickle(slow.socket, framed.subarray(mshEnd), 25);
    const data = await Promise.race([slow.done, new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000))]);
    expect(data, 'closed by the server within 5 s').not.toBeNull();
    const ack = (data as Buffer).toString('latin1');
    expect(ack).toContain('MSA|AR|TRICKLE');
    expect(ack).toContain('did not arrive whole within 300 ms');
    expect(handler.got).toHaveLength(0);
    expect(await refusals(registry, label, 'frame_timeout')).toBe(1);
  });

  it('closes a connection that never sends, but keeps one that sent a message and then idles', async () => {
    const { port, registry, label } = await listen({ silentTimeoutMs: 300 });
    const silent = await peer(port, ATTACKER);
    sockets.push(silent);
    const analyser = await peer(port, '127.0.0.1');
    sockets.push(analyser);
    analyser.socket.write(frameMllp(Buffer.from(adt('FIRST'))));
    const closed = await Promise.race([silent.done.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
    expect(closed).toBe(true);
    // Well past the silent timeout, the analyser that did send still holds its connection.
    await until('the analyser to be answered', () => (analyser.data().length > 0 ? true : undefined), 5_000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(analyser.closed).toBe(false);
    expect(await refusals(registry, label, 'silent')).toBe(1);
  });

  it('closes a TLS connection whose handshake never starts, after the handshake timeout', async () => {
    const { port, registry, label } = await listen({ handshakeTimeoutMs: 300 }, { type: 'tls' });
    const raw = await peer(port, ATTACKER);
    sockets.push(raw);
    const closed = await Promise.race([raw.done.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
    expect(closed).toBe(true);
    await until('the handshake timeout to be counted', async () => ((await refusals(registry, label, 'handshake_timeout')) === 1 ? true : undefined), 2_000);
  });
});

describe('connection limits on the HTTP and HTTPS transaction ports', () => {
  let ports: TransactionPorts | undefined;
  const sockets: Peer[] = [];
  afterEach(async () => {
    for (const p of sockets.splice(0)) p.socket.destroy();
    await ports?.stop();
    ports = undefined;
  });

  async function start(limits: { perAddress?: number; total?: number; headTimeoutMs?: number; handshakeTimeoutMs?: number } = {}) {
    const log = memoryLogger();
    const registry = new Registry();
    const admission = new Admission({ perAddress: limits.perAddress ?? 8, total: limits.total ?? 10_000, logger: log.logger, registry });
    // The transaction path is not under test: every request that reaches it is answered 200.
    const pipeline = { handle: (_req: IncomingMessage, res: ServerResponse) => Promise.resolve(void res.end('ok')) } as unknown as Pipeline;
    ports = new TransactionPorts(pipeline, {
      host: '127.0.0.1',
      httpPort: await freePort(),
      httpsPort: await freePort(),
      certificate,
      requestClientCertificates: false,
      trustedCAs: [],
      logger: log.logger,
      admission,
      connectionLimits: { perAddress: limits.perAddress ?? 8, headTimeoutMs: limits.headTimeoutMs ?? 30_000, handshakeTimeoutMs: limits.handshakeTimeoutMs ?? 30_000 },
    });
    const bound = await ports.start();
    return { ...bound, lines: log.lines, registry };
  }

  it('serves legitimate clients while one address holds hundreds of idle and trickling connections', async () => {
    const { httpPort, lines, registry } = await start();
    const idle = await peers(httpPort, ATTACKER, 200);
    const tricklers = await peers(httpPort, ATTACKER, 20);
    sockets.push(...idle, ...tricklers);
    for (const t of tricklers) if (!t.closed) trickle(t.socket, Buffer.from('GET / HTTP/1.1\r\nx-slow: 1111111111111111\r\n'), 200);
    await until('the refused connections to close', () => (open([...idle, ...tricklers]).length <= 8 ? true : undefined), 10_000);
    expect(open([...idle, ...tricklers]).length).toBe(8);
    for (const address of LEGITIMATE) expect(await httpGet(httpPort, address), `legitimate client ${address}`).toBe('HTTP/1.1 200 OK');
    expect(await refusals(registry, 'http', 'per_address')).toBe(212);
    expect(lines.filter((l) => l.reason === 'per_address')).toHaveLength(1);
  });

  it('answers 408 and closes a silent socket, a sender trickling its headers and an idle TLS session', async () => {
    const { httpPort, httpsPort, registry } = await start({ headTimeoutMs: 300 });
    const silent = await peer(httpPort, ATTACKER);
    const slow = await peer(httpPort, ATTACKER);
    sockets.push(silent, slow);
    trickle(slow.socket, Buffer.from(`GET / HTTP/1.1\r\nx-slow: ${'1'.repeat(200)}\r\n\r\n`), 25);
    const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000))]);
    for (const p of [silent, slow]) {
      const data = await within(p.done);
      expect(data?.toString('latin1')).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    }
    const session = await idleTlsSession(httpsPort, 5_000);
    expect(session.closedByServer).toBe(true);
    expect(session.data).toMatch(/^HTTP\/1\.1 408 /);
    expect(await refusals(registry, 'http', 'head_timeout')).toBe(2);
    expect(await refusals(registry, 'https', 'head_timeout')).toBe(1);
    // A kept-alive connection gets the same deadline for its next head.
    expect(await httpGet(httpPort, '127.0.0.1')).toBe('HTTP/1.1 200 OK');
  });

  it('closes an HTTPS connection whose handshake never starts, after the handshake timeout', async () => {
    const { httpsPort, registry } = await start({ handshakeTimeoutMs: 300 });
    const raw = await peer(httpsPort, ATTACKER);
    sockets.push(raw);
    const closed = await Promise.race([raw.done.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
    expect(closed).toBe(true);
    expect(await refusals(registry, 'https', 'handshake_timeout')).toBe(1);
  });

  it('refuses connections over the process-wide cap, logging once per address, and serves again once some close', async () => {
    const { httpPort, lines, registry } = await start({ perAddress: 100, total: 12 });
    const first = await peers(httpPort, ATTACKER, 12);
    const more = await peers(httpPort, '127.0.0.7', 30);
    sockets.push(...first, ...more);
    await until('the connections over the cap to close', () => (open(more).length === 0 ? true : undefined), 10_000);
    expect(open(first)).toHaveLength(12);
    expect(await httpGet(httpPort, '127.0.0.1')).toBeNull();
    expect(await refusals(registry, 'http', 'total')).toBe(31);
    const logged = lines.filter((l) => l.reason === 'total');
    expect(logged.map((l) => l.peer).sort()).toEqual(['127.0.0.1', '127.0.0.7']);
    expect(logged[0]).toMatchObject({ limit: 12, msg: 'refused a connection: the service holds as many connections as connections.maxTotal allows' });
    for (const p of first) p.socket.destroy();
    await until('the cap to free up', async () => ((await httpGet(httpPort, '127.0.0.1')) === 'HTTP/1.1 200 OK' ? true : undefined), 5_000);
  });
});
