/** Raw peers for the connection-limit tests: sockets from a chosen loopback address, kept open, trickling or silent. */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { MllpDecoder } from '../../service/domain/codecs/mllp-framing.js';

/** One client socket and what became of it. */
export interface Peer {
  socket: Socket;
  /** Everything the server sent. */
  data: () => Buffer;
  closed: boolean;
  /** Resolves when the socket has closed, with every byte the server sent. */
  done: Promise<Buffer>;
}

/** Connects from `localAddress` (all of 127/8 is loopback on Linux, so each is a different sender). */
export function peer(port: number, localAddress: string): Promise<Peer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port, localAddress, allowHalfOpen: false });
    const p: Peer = {
      socket,
      data: () => Buffer.concat(parts),
      closed: false,
      done: new Promise((settle) => socket.once('close', () => settle(Buffer.concat(parts)))),
    };
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    // A refused connection is reset: that is an outcome here, not a failure.
    socket.on('error', () => undefined);
    socket.once('close', () => {
      p.closed = true;
      resolve(p);
    });
    socket.once('connect', () => resolve(p));
  });
}

/** Opens `count` peers from one address, one after another (the server sees them in order). */
export async function peers(port: number, localAddress: string, count: number): Promise<Peer[]> {
  const all: Peer[] = [];
  for (let i = 0; i < count; i++) all.push(await peer(port, localAddress));
  return all;
}

/** Writes `data` one byte every `everyMs` until it is all written or the socket closes (a trickling sender). */
export function trickle(socket: Socket, data: Buffer, everyMs: number): { stop: () => void } {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= data.length) {
      clearInterval(timer);
      return;
    }
    socket.write(data.subarray(at, at + 1));
    at++;
  }, everyMs);
  return { stop: () => clearInterval(timer) };
}

/** Sends one MLLP-framed message from `localAddress` and resolves with the first reply (or null when closed first). */
export function mllpRequest(port: number, localAddress: string, framed: Buffer, timeoutMs = 5_000): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    const decoder = new MllpDecoder({ maxMessageBytes: 1024 * 1024 });
    const timer = setTimeout(() => finish(null), timeoutMs);
    let finished = false;
    function finish(reply: Buffer | null) {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    }
    socket.on('data', (chunk: Buffer) => {
      const [reply] = decoder.push(chunk).messages;
      if (reply !== undefined) finish(reply);
    });
    socket.on('error', () => finish(null));
    socket.on('close', () => finish(null));
    socket.on('connect', () => socket.write(framed));
  });
}

/** An HTTP GET over a fresh connection from `localAddress`; resolves with the status line, or null when refused. */
export function httpGet(port: number, localAddress: string, timeoutMs = 5_000): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    const parts: Buffer[] = [];
    const timer = setTimeout(() => finish(), timeoutMs);
    let finished = false;
    function finish() {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(parts).toString('latin1');
      resolve(text === '' ? null : (text.split('\r\n')[0] ?? null));
    }
    socket.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      if (Buffer.concat(parts).includes('\r\n\r\n')) finish();
    });
    socket.on('error', () => finish());
    socket.on('close', () => finish());
    socket.on('connect', () => socket.write('GET /ping HTTP/1.1\r\nhost: localhost\r\n\r\n'));
  });
}

/** A TLS session that completes its handshake and then sends nothing; resolves with what the server sent before closing. */
export function idleTlsSession(port: number, timeoutMs: number): Promise<{ data: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ data: Buffer.concat(parts).toString('latin1'), closedByServer: false });
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data: Buffer.concat(parts).toString('latin1'), closedByServer: true });
    });
  });
}
