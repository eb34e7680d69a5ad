import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { RouteError } from '../../service/routing/http.js';
import type { SocketRouteCall } from '../../service/routing/mllp.js';
import { TcpRouter } from '../../service/routing/tcp.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { freePort } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

interface Peer {
  port: number;
  sockets: Set<Socket>;
  close(): Promise<void>;
}

/** A raw TCP upstream: `onRequest` gets everything a connection sent once the sender half-closed it. */
async function tcpPeer(onRequest: (request: Buffer, socket: Socket) => void, options: { tls?: { cert: string; key: string }; onConnection?: (socket: Socket) => void } = {}): Promise<Peer> {
  const sockets = new Set<Socket>();
  const onSocket = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    options.onConnection?.(socket);
    const parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('end', () => onRequest(Buffer.concat(parts), socket));
  };
  // allowHalfOpen: the peer answers after the sender has half-closed its side.
  const server: Server = options.tls === undefined ? createServer({ allowHalfOpen: true }, onSocket) : createTlsServer({ ...options.tls, allowHalfOpen: true }, onSocket);
  // Raw connections too: a TLS handshake the sender refused never becomes a secure socket, yet keeps the server open.
  const raw = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    raw.add(socket);
    socket.on('close', () => raw.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of [...sockets, ...raw]) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('outbound TCP routing', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function setUp(onRequest: (request: Buffer, socket: Socket) => void, maxReplyBytes = 1024 * 1024): Promise<{ peer: Peer; router: TcpRouter; call: (message: Buffer, extra?: Partial<SocketRouteCall>) => Promise<Buffer> }> {
    const peer = await tcpPeer(onRequest);
    const router = new TcpRouter({ maxReplyBytes });
    cleanup.push(() => peer.close(), () => router.close());
    const call = (message: Buffer, extra: Partial<SocketRouteCall> = {}) => router.send({ target: { host: '127.0.0.1', port: peer.port, secured: false }, message, timeoutMs: 2000, ...extra });
    return { peer, router, call };
  }

  /** The router's own sockets: the peer, half-closed already, cannot tell when the router closes its side. */
  function clientSockets(): Socket[] {
    const seen: Socket[] = [];
    const onSocket = (m: unknown): void => void seen.push((m as { socket: Socket }).socket);
    subscribe('net.client.socket', onSocket);
    cleanup.push(async () => unsubscribe('net.client.socket', onSocket));
    return seen;
  }
  const allClosed = (sockets: Socket[]): true | undefined => (sockets.length > 0 && sockets.every((socket) => socket.destroyed) ? true : undefined);

  async function failureOf(sending: Promise<unknown>): Promise<RouteError> {
    const err = await sending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RouteError);
    return err as RouteError;
  }

  it('writes the message, half-closes, and reads the reply to its end, over a fresh connection each time', async () => {
    let connections = 0;
    const peer = await tcpPeer(
      (request, socket) => {
        // The reply in pieces, to show the router reads until the end rather than the first chunk.
        socket.write('got ');
        socket.write(`${request.length} bytes: `);
        socket.end(request);
      },
      { onConnection: () => void connections++ },
    );
    const router = new TcpRouter({ maxReplyBytes: 1024 });
    cleanup.push(() => peer.close(), () => router.close());
    const mine = clientSockets();
    for (const text of ['hello', 'again']) {
      const reply = await router.send({ target: { host: '127.0.0.1', port: peer.port, secured: false }, message: Buffer.from(text), timeoutMs: 2000 });
      expect(reply.toString()).toBe(`got 5 bytes: ${text}`);
    }
    expect(connections).toBe(2);
    await until('the connections to close', () => allClosed(mine), 2000);
  });

  it('times out when the peer never ends its reply, and closes the connection', async () => {
    const { peer, call } = await setUp((_request, socket) => socket.write('partial'));
    const mine = clientSockets();
    const started = Date.now();
    const err = await failureOf(call(Buffer.from('ping'), { timeoutMs: 200 }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe(`TCP upstream 127.0.0.1:${peer.port}: its reply was not complete within 200 ms (7 bytes received)`);
    expect(Date.now() - started).toBeLessThan(1000);
    await until('the connection to close', () => allClosed(mine), 2000);
  });

  it('refuses a reply longer than maxReplyBytes', async () => {
    const { call } = await setUp((_request, socket) => socket.end(Buffer.alloc(5000, 0x41)), 1000);
    const err = await failureOf(call(Buffer.from('ping')));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain('longer than the 1000 bytes allowed');
  });

  it('reports a refused connection and a reset naming host and port', async () => {
    const port = await freePort();
    const router = new TcpRouter({ maxReplyBytes: 1024 });
    cleanup.push(() => router.close());
    const refused = await failureOf(router.send({ target: { host: '127.0.0.1', port, secured: false }, message: Buffer.from('x'), timeoutMs: 2000 }));
    expect(refused.kind).toBe('connection');
    expect(refused.message).toContain(`TCP upstream 127.0.0.1:${port} could not be reached`);

    // A reset as the connection opens: one that comes after the router's half-close reads as an ordinary end.
    const peer = await tcpPeer(() => undefined, { onConnection: (socket) => socket.resetAndDestroy() });
    cleanup.push(() => peer.close());
    const call = (message: Buffer) => router.send({ target: { host: '127.0.0.1', port: peer.port, secured: false }, message, timeoutMs: 2000 });
    const reset = await failureOf(call(Buffer.from('x')));
    expect(reset.kind).toBe('connection');
    expect(reset.message).toContain(`TCP upstream 127.0.0.1:${peer.port}`);
  });

  it('rejects promptly when the signal aborts', async () => {
    const { peer, call } = await setUp(() => undefined);
    const mine = clientSockets();
    const controller = new AbortController();
    const sending = failureOf(call(Buffer.from('x'), { timeoutMs: 10_000, signal: controller.signal }));
    await until('the peer to see the connection', () => (peer.sockets.size > 0 ? true : undefined), 2000);
    const started = Date.now();
    controller.abort(new Error('the transaction stalled'));
    const err = await sending;
    expect(Date.now() - started).toBeLessThan(100);
    expect(err.message).toContain('the transaction stalled');
    await until('the connection to close', () => allClosed(mine), 2000);
  });

  it('speaks TLS to a peer whose certificate it trusts, and refuses one it does not', async () => {
    const pair = generateSelfSigned('localhost');
    const peer = await tcpPeer((request, socket) => socket.end(Buffer.concat([Buffer.from('secure '), request])), { tls: pair });
    const trusting = new TcpRouter({ maxReplyBytes: 1024, trustedCAs: [pair.cert] });
    const untrusting = new TcpRouter({ maxReplyBytes: 1024 });
    cleanup.push(
      () => peer.close(),
      () => trusting.close(),
      () => untrusting.close(),
    );
    const target = { host: 'localhost', port: peer.port, secured: true };
    expect((await trusting.send({ target, message: Buffer.from('hello'), timeoutMs: 5000 })).toString()).toBe('secure hello');
    const err = await failureOf(untrusting.send({ target, message: Buffer.from('hello'), timeoutMs: 5000 }));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain('presented a TLS certificate that is not trusted');
  });

  it('rejects sends after close, and close ends the sends still open', async () => {
    const { peer, router, call } = await setUp(() => undefined);
    const open = failureOf(call(Buffer.from('x'), { timeoutMs: 10_000 }));
    await until('the peer to see the connection', () => (peer.sockets.size > 0 ? true : undefined), 2000);
    await router.close();
    expect((await open).kind).toBe('connection');
    expect((await failureOf(call(Buffer.from('y')))).message).toContain('closed');
  });
});
