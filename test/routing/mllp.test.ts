import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer as createTlsServer, TLSSocket } from 'node:tls';
import { Server as Hl7Server } from 'node-hl7-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ackCodeOf } from '../../service/domain/codecs/hl7.js';
import { frameMllp, MllpDecoder } from '../../service/domain/codecs/mllp-framing.js';
import { MllpRouter } from '../../service/routing/mllp.js';
import type { MllpRouterOptions, SocketRouteCall } from '../../service/routing/mllp.js';
import { RouteError } from '../../service/routing/http.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { freePort } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

/** An HL7 v2 message with the given control id (MSH-10). */
function hl7(controlId: string, type = 'ORU^R01'): Buffer {
  return Buffer.from(`MSH|^~\\&|LAB|HOSP|JUNCTION|CLINIC|20240101120000||${type}|${controlId}|P|2.5\rPID|1||12345^^^HOSP||DOE^JANE\rOBX|1|NM|GLU||5.4|mmol/L\r`);
}

function controlIdOf(message: Buffer): string {
  return message.toString('latin1').split('\r')[0]?.split('|')[9] ?? '';
}

function ackFor(message: Buffer): Buffer {
  return Buffer.from(`MSH|^~\\&|JUNCTION|CLINIC|LAB|HOSP|20240101120001||ACK|A${controlIdOf(message)}|P|2.5\rMSA|AA|${controlIdOf(message)}\r`);
}

interface Peer {
  port: number;
  /** Connections accepted so far. */
  connections: number;
  /** Most connections open at once. */
  maxOpen: number;
  sockets: Set<Socket>;
  messages: Buffer[];
  /** The SNI name each TLS connection asked for (false when none). */
  servernames: (string | false | null)[];
  close(): Promise<void>;
}

type OnMessage = (message: Buffer, socket: Socket, peer: Peer) => void;

/** An MLLP upstream written here for fault cases: decodes each connection's frames and hands them to `onMessage`. */
async function mllpPeer(onMessage: OnMessage, tls?: { cert: string; key: string }): Promise<Peer> {
  const peer: Peer = { port: 0, connections: 0, maxOpen: 0, sockets: new Set(), messages: [], servernames: [], close: async () => undefined };
  const onSocket = (socket: Socket): void => {
    peer.connections++;
    if (socket instanceof TLSSocket) peer.servernames.push(socket.servername);
    peer.sockets.add(socket);
    peer.maxOpen = Math.max(peer.maxOpen, peer.sockets.size);
    socket.on('close', () => peer.sockets.delete(socket));
    socket.on('error', () => undefined);
    const decoder = new MllpDecoder({ maxMessageBytes: 64 * 1024 * 1024 });
    socket.on('data', (chunk: Buffer) => {
      for (const message of decoder.push(chunk).messages) {
        peer.messages.push(message);
        onMessage(message, socket, peer);
      }
    });
  };
  const server: Server = tls === undefined ? createServer(onSocket) : createTlsServer(tls, onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.port = (server.address() as AddressInfo).port;
  peer.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of peer.sockets) socket.destroy();
      server.close(() => resolve());
    });
  return peer;
}

const answer: OnMessage = (message, socket) => socket.write(frameMllp(ackFor(message)));

const OPTIONS: MllpRouterOptions = { connectionsPerUpstream: 4, idleTimeoutMs: 60_000, maxReplyBytes: 1024 * 1024 };

describe('outbound MLLP routing', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function setUp(onMessage: OnMessage, options: Partial<MllpRouterOptions> = {}): Promise<{ peer: Peer; router: MllpRouter; call: (message: Buffer, extra?: Partial<SocketRouteCall>) => Promise<Buffer> }> {
    const peer = await mllpPeer(onMessage);
    const router = new MllpRouter({ ...OPTIONS, ...options });
    cleanup.push(() => peer.close(), () => router.close());
    const call = (message: Buffer, extra: Partial<SocketRouteCall> = {}) => router.send({ target: { host: '127.0.0.1', port: peer.port, secured: false }, message, timeoutMs: 2000, ...extra });
    return { peer, router, call };
  }

  /** The sockets the router opens from now on (Node announces each client socket on this diagnostics channel). */
  function routerSockets(): Socket[] {
    const seen: Socket[] = [];
    const onSocket = (m: unknown): void => void seen.push((m as { socket: Socket }).socket);
    subscribe('net.client.socket', onSocket);
    cleanup.push(async () => unsubscribe('net.client.socket', onSocket));
    return seen;
  }

  async function failureOf(sending: Promise<unknown>): Promise<RouteError> {
    const err = await sending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RouteError);
    return err as RouteError;
  }

  it('sends ORU^R01 and ADT^A01 to a published HL7 server (node-hl7-server) and returns its ACKs unframed', async () => {
    const port = await freePort();
    const server = new Hl7Server({ bindAddress: '127.0.0.1' });
    const seen: string[] = [];
    const inbound = server.createInbound({ port }, (req, res) => {
      seen.push(req.getMessage().get('MSH.9.1').toString());
      void res.sendResponse('AA');
    });
    await new Promise<void>((resolve) => inbound.once('listen', resolve));
    // Two routers, so each message has a connection of its own: this server keeps the first message's text in its
    // buffer and reads a second one on the same connection together with it.
    const routers = [new MllpRouter(OPTIONS), new MllpRouter(OPTIONS)];
    cleanup.push(
      () => inbound.close(),
      ...routers.map((r) => () => r.close()),
    );
    const [oru, adt] = await Promise.all([
      routers[0]!.send({ target: { host: '127.0.0.1', port, secured: false }, message: hl7('ORU-1'), timeoutMs: 5000 }),
      routers[1]!.send({ target: { host: '127.0.0.1', port, secured: false }, message: hl7('ADT-1', 'ADT^A01'), timeoutMs: 5000 }),
    ]);
    for (const [reply, id] of [
      [oru, 'ORU-1'],
      [adt, 'ADT-1'],
    ] as const) {
      expect(reply[0]).not.toBe(0x0b);
      expect(reply.includes(0x1c)).toBe(false);
      expect(reply.toString()).toMatch(/^MSH\|/);
      expect(reply.toString()).toContain(`MSA|AA|${id}`);
      expect(ackCodeOf(reply)).toBe('AA');
    }
    expect(seen.sort()).toEqual(['ADT', 'ORU']);
  });

  it('reassembles a reply that arrives one byte at a time', async () => {
    const { call } = await setUp((message, socket) => {
      const framed = frameMllp(ackFor(message));
      let at = 0;
      const next = (): void => {
        if (at < framed.length && !socket.destroyed) socket.write(framed.subarray(at, ++at), next);
      };
      next();
    });
    const reply = await call(hl7('SPLIT-1'));
    expect(reply.toString()).toContain('MSA|AA|SPLIT-1');
  });

  it('reuses one connection for sequential sends without adding listeners to it', async () => {
    const clientSockets = routerSockets();
    const { peer, call } = await setUp(answer);
    for (const id of ['S1', 'S2', 'S3']) expect((await call(hl7(id))).toString()).toContain(`MSA|AA|${id}`);
    expect(peer.connections).toBe(1);

    const socket = clientSockets[0];
    expect(socket).toBeDefined();
    const events = ['data', 'end', 'error', 'close', 'connect', 'timeout'];
    const counts = (): number[] => events.map((e) => socket!.listenerCount(e));
    const before = counts();
    for (let i = 0; i < 50; i++) await call(hl7(`L${i}`));
    expect(counts()).toEqual(before);
    expect(peer.connections).toBe(1);
  });

  it('opens at most connectionsPerUpstream connections for concurrent sends, and each gets its own reply', async () => {
    // The peer holds each message briefly so that the sends overlap.
    const { peer, call } = await setUp((message, socket) => void setTimeout(() => answer(message, socket, peer), 20), { connectionsPerUpstream: 4 });
    const ids = Array.from({ length: 10 }, (_, i) => `C${i}`);
    const replies = await Promise.all(ids.map((id) => call(hl7(id))));
    replies.forEach((reply, i) => expect(reply.toString()).toContain(`MSA|AA|${ids[i]}\r`));
    expect(peer.connections).toBeLessThanOrEqual(4);
    expect(peer.maxOpen).toBeGreaterThan(1);
  });

  it('times out within timeoutMs when the upstream never answers, and drops that connection', async () => {
    const { peer, call } = await setUp(() => undefined);
    const started = Date.now();
    const err = await failureOf(call(hl7('SILENT'), { timeoutMs: 200 }));
    const elapsed = Date.now() - started;
    expect(err.kind).toBe('timeout');
    expect(err.message).toContain(`127.0.0.1:${peer.port}`);
    expect(err.message).toMatch(/did not reply within 200 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1000);
    // The connection is destroyed, so a late reply can never be read as the next message's.
    await until('the timed-out connection to close', () => (peer.sockets.size === 0 ? true : undefined), 2000);
  });

  it('counts the wait for a busy pool against the timeout', async () => {
    const { call } = await setUp(() => undefined, { connectionsPerUpstream: 1 });
    const first = failureOf(call(hl7('HOLD'), { timeoutMs: 400 }));
    const err = await failureOf(call(hl7('QUEUED'), { timeoutMs: 200 }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toMatch(/no connection to it became free within 200 ms/);
    expect((await first).kind).toBe('timeout');
  });

  it('drops an idle pooled connection the upstream closes, and the next send succeeds', async () => {
    const clientSockets = routerSockets();
    const { peer, call } = await setUp((message, socket) => socket.end(frameMllp(ackFor(message))));
    await call(hl7('ONE'));
    const first = clientSockets[0];
    await until('the router to drop the closed connection', () => (first?.destroyed === true ? true : undefined), 2000);
    expect((await call(hl7('TWO'))).toString()).toContain('MSA|AA|TWO');
    expect(peer.connections).toBe(2);
  });

  it('drops an idle connection on which the upstream sends unasked, so a stray frame is never read as a reply', async () => {
    const clientSockets = routerSockets();
    const { peer, call } = await setUp(answer);
    await call(hl7('FIRST'));
    // Written once the reply has been taken, so it reaches a connection that sits idle in the pool.
    for (const upstream of peer.sockets) upstream.write(frameMllp(Buffer.from('MSH|^~\\&|STRAY\rMSA|AA|STRAY\r')));
    const first = clientSockets[0];
    await until('the router to drop the connection that talked unasked', () => (first?.destroyed === true ? true : undefined), 2000);
    expect((await call(hl7('SECOND'))).toString()).toContain('MSA|AA|SECOND');
    expect(peer.connections).toBe(2);
  });

  it('keeps an idle connection whose upstream follows its reply with a late line break', async () => {
    const clientSockets = routerSockets();
    const { peer, call } = await setUp(answer);
    await call(hl7('LF-1'));
    const socket = clientSockets[0];
    const before = socket?.bytesRead ?? 0;
    for (const upstream of peer.sockets) upstream.write('\n');
    await until('the line break to be read while the connection is idle', () => (socket !== undefined && socket.bytesRead > before ? true : undefined), 2000);
    expect((await call(hl7('LF-2'))).toString()).toContain('MSA|AA|LF-2');
    expect(peer.connections).toBe(1);
  });

  it('sends again once on a fresh connection when a reused one is reset before any reply byte', async () => {
    // The first connection answers one message, then resets on the next, as a peer that closed it while idle would.
    const seen = new Map<Socket, { index: number; count: number }>();
    const { peer, call } = await setUp((message, socket) => {
      const state = seen.get(socket) ?? { index: seen.size + 1, count: 0 };
      seen.set(socket, state);
      state.count++;
      if (state.index === 1 && state.count === 2) socket.resetAndDestroy();
      else answer(message, socket, peer);
    });
    await call(hl7('R1'));
    expect((await call(hl7('R2'))).toString()).toContain('MSA|AA|R2');
    expect(peer.connections).toBe(2);
  });

  it('does not send again when a fresh connection is reset', async () => {
    const { peer, call } = await setUp((_message, socket) => socket.resetAndDestroy());
    const err = await failureOf(call(hl7('RESET')));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain(`127.0.0.1:${peer.port}`);
    expect(peer.connections).toBe(1);
  });

  it('reports an upstream that resets in the middle of its reply', async () => {
    const { call } = await setUp((message, socket) => {
      const framed = frameMllp(ackFor(message));
      socket.write(framed.subarray(0, 20), () => socket.resetAndDestroy());
    });
    const err = await failureOf(call(hl7('HALF')));
    expect(err.kind).toBe('connection');
    expect(err.message).toMatch(/broke off in the middle of its reply after 20 bytes|closed the connection in the middle of its reply, after 20 bytes/);
  });

  it('refuses a reply longer than maxReplyBytes instead of cutting it short', async () => {
    const { call } = await setUp((_message, socket) => socket.write(frameMllp(Buffer.alloc(5000, 0x41))), { maxReplyBytes: 1000 });
    const err = await failureOf(call(hl7('BIG')));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain('longer than the 1000 bytes allowed');
  });

  it('refuses a reply that is not MLLP, naming the problem', async () => {
    const { peer, call } = await setUp((_message, socket) => socket.write('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const err = await failureOf(call(hl7('GARBAGE')));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain(`MLLP upstream 127.0.0.1:${peer.port}`);
    expect(err.message).toContain('data outside an MLLP frame (0x48');
    await until('the connection to close', () => (peer.sockets.size === 0 ? true : undefined), 2000);
  });

  it('does not reuse a connection whose upstream sent more than one reply', async () => {
    const { peer, call } = await setUp((message, socket) => socket.write(Buffer.concat([frameMllp(ackFor(message)), frameMllp(Buffer.from('MSH|extra'))])));
    expect((await call(hl7('TWICE-1'))).toString()).toContain('MSA|AA|TWICE-1');
    expect((await call(hl7('TWICE-2'))).toString()).toContain('MSA|AA|TWICE-2');
    expect(peer.connections).toBe(2);
  });

  it('refuses a reply that the call check rejects, and does not reuse its connection', async () => {
    // An upstream out of step: it answers every message with an ACK of the first one it saw.
    let first: Buffer | undefined;
    const { peer, call } = await setUp((message, socket) => {
      first ??= message;
      socket.write(frameMllp(ackFor(first)));
    });
    const check = (reply: Buffer) => (reply.toString().includes('MSA|AA|STALE-1') ? undefined : 'acknowledged another message');
    expect((await call(hl7('STALE-1'), { check })).toString()).toContain('MSA|AA|STALE-1');
    const err = await failureOf(call(hl7('STALE-2'), { check: (reply) => (reply.toString().includes('MSA|AA|STALE-2') ? undefined : 'acknowledged another message') }));
    expect(err.kind).toBe('connection');
    expect(err.message).toBe(`MLLP upstream 127.0.0.1:${peer.port} acknowledged another message`);
    await until('the out-of-step connection to close', () => (peer.sockets.size === 0 ? true : undefined), 2000);
  });

  it('rejects promptly when the signal aborts, and closes the connection', async () => {
    const { peer, call } = await setUp(() => undefined);
    const controller = new AbortController();
    const sending = failureOf(call(hl7('ABORT'), { timeoutMs: 10_000, signal: controller.signal }));
    await until('the upstream to receive the message', () => (peer.messages.length > 0 ? true : undefined), 2000);
    const started = Date.now();
    controller.abort(new Error('the transaction stalled'));
    const err = await sending;
    expect(Date.now() - started).toBeLessThan(100);
    expect(err.kind).toBe('connection');
    expect(err.message).toContain('the transaction stalled');
    await until('the aborted connection to close', () => (peer.sockets.size === 0 ? true : undefined), 2000);
  });

  it('reports a refused connection naming host and port', async () => {
    const port = await freePort();
    const router = new MllpRouter(OPTIONS);
    cleanup.push(() => router.close());
    const err = await failureOf(router.send({ target: { host: '127.0.0.1', port, secured: false }, message: hl7('NOBODY'), timeoutMs: 2000 }));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain(`MLLP upstream 127.0.0.1:${port} could not be reached`);
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('carries a 5 MB message and a 5 MB reply', async () => {
    const { call } = await setUp((message, socket) => socket.write(frameMllp(message)), { maxReplyBytes: 16 * 1024 * 1024 });
    const big = Buffer.alloc(5 * 1024 * 1024);
    // Every byte value but the framing bytes, so a byte lost or changed anywhere shows.
    for (let i = 0; i < big.length; i++) {
      const b = i % 256;
      big[i] = b === 0x0b || b === 0x1c ? 0x20 : b;
    }
    const reply = await call(big, { timeoutMs: 20_000 });
    expect(reply.length).toBe(big.length);
    expect(reply.equals(big)).toBe(true);
  });

  it('speaks TLS to an upstream whose certificate it trusts, and refuses one it does not', async () => {
    const pair = generateSelfSigned('localhost');
    const peer = await mllpPeer(answer, pair);
    const trusting = new MllpRouter({ ...OPTIONS, trustedCAs: [pair.cert] });
    const untrusting = new MllpRouter(OPTIONS);
    cleanup.push(
      () => peer.close(),
      () => trusting.close(),
      () => untrusting.close(),
    );
    const target = { host: 'localhost', port: peer.port, secured: true };
    expect((await trusting.send({ target, message: hl7('TLS-1'), timeoutMs: 5000 })).toString()).toContain('MSA|AA|TLS-1');
    const err = await failureOf(untrusting.send({ target, message: hl7('TLS-2'), timeoutMs: 5000 }));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain(`MLLP upstream localhost:${peer.port} (TLS) presented a TLS certificate that is not trusted`);
    // By address: no SNI (an IP address is not a server name); the certificate names 127.0.0.1 too.
    expect((await trusting.send({ target: { ...target, host: '127.0.0.1' }, message: hl7('TLS-3'), timeoutMs: 5000 })).toString()).toContain('MSA|AA|TLS-3');
    expect(peer.messages.map(controlIdOf)).toEqual(['TLS-1', 'TLS-3']);
    expect(peer.servernames).toEqual(['localhost', false]);
  });

  it('rejects sends after close, and close ends the exchanges still waiting', async () => {
    const { peer, router, call } = await setUp(() => undefined);
    const waiting = failureOf(call(hl7('PENDING'), { timeoutMs: 10_000 }));
    await until('the upstream to receive the message', () => (peer.messages.length > 0 ? true : undefined), 2000);
    await router.close();
    expect((await waiting).kind).toBe('connection');
    const err = await failureOf(call(hl7('LATE')));
    expect(err.message).toContain('closed');
  });
});
