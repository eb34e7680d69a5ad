/**
 * Peers for the audit forwarder's tests: repositories of the test's own (plain TCP, TLS with a client certificate
 * required, UDP) that collect what arrives, unframed by byte counts; certificates made here; and timers the test
 * fires by hand, so backoff and timeouts need no real waiting.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';
import type { Timers } from '../../service/audit/forwarder.js';

/** Timers that fire only when the test says so. */
export class ManualTimers implements Timers {
  readonly #pending = new Map<number, { callback: () => void; ms: number }>();
  #next = 0;

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.#next;
    this.#pending.set(id, { callback, ms });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  /** The delays of the timers armed now. */
  armed(): number[] {
    return [...this.#pending.values()].map((t) => t.ms);
  }

  /** Fires every armed timer of exactly `ms`; returns how many. */
  fire(ms: number): number {
    const due = [...this.#pending.entries()].filter(([, t]) => t.ms === ms);
    for (const [id, t] of due) {
      this.#pending.delete(id);
      t.callback();
    }
    return due.length;
  }
}

/** Reads RFC 5425 octet-counted frames, counting bytes; anything else is recorded as a framing error. */
class OctetFrames {
  #buffer = Buffer.alloc(0);
  constructor(private readonly onMessage: (message: string) => void, private readonly onError: (error: string) => void) {}

  push(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const space = this.#buffer.indexOf(0x20);
      if (space < 0) return;
      const digits = this.#buffer.subarray(0, space).toString('ascii');
      if (!/^[1-9][0-9]*$/.test(digits)) {
        this.onError(`bad length ${JSON.stringify(digits)}`);
        this.#buffer = Buffer.alloc(0);
        return;
      }
      const length = Number(digits);
      if (this.#buffer.length < space + 1 + length) return;
      this.onMessage(this.#buffer.subarray(space + 1, space + 1 + length).toString('utf8'));
      this.#buffer = this.#buffer.subarray(space + 1 + length);
    }
  }
}

export interface Collector {
  port: number;
  messages: string[];
  framingErrors: string[];
  /** Connections accepted (TCP and TLS). */
  connections: () => number;
  /** The client certificate's CN of each TLS connection. */
  clientNames: string[];
  tlsErrors: string[];
  close(): Promise<void>;
}

export interface StreamCollectorOptions {
  port?: number;
  tls?: { key: string; cert: string; ca: string };
  /** Accepts connections but never reads from them. */
  stalled?: boolean;
}

/** A TCP or TLS repository collecting octet-counted messages. */
export async function streamCollector(options: StreamCollectorOptions = {}): Promise<Collector> {
  const messages: string[] = [];
  const framingErrors: string[] = [];
  const clientNames: string[] = [];
  const tlsErrors: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const handle = (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (options.stalled === true) return;
    const frames = new OctetFrames((m) => messages.push(m), (e) => framingErrors.push(e));
    socket.on('data', (chunk: Buffer) => frames.push(chunk));
  };
  let server: Server;
  if (options.tls === undefined) server = createNetServer({ pauseOnConnect: options.stalled === true }, handle);
  else {
    server = createTlsServer({ ...options.tls, requestCert: true, rejectUnauthorized: true }, (socket: TLSSocket) => {
      const cn = socket.getPeerCertificate().subject.CN;
      clientNames.push(Array.isArray(cn) ? cn.join(',') : String(cn));
      handle(socket);
    });
    server.on('tlsClientError', (err: Error) => tlsErrors.push(err.message));
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    messages,
    framingErrors,
    connections: () => connections,
    clientNames,
    tlsErrors,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A UDP repository: one datagram, one message. */
export async function udpCollector(): Promise<Collector> {
  const messages: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (data) => messages.push(data.toString('utf8')));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return {
    port: socket.address().port,
    messages,
    framingErrors: [],
    connections: () => 0,
    clientNames: [],
    tlsErrors: [],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function keys(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; pem: string } {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { publicKey: forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()), privateKey: forge.pki.privateKeyFromPem(pem), pem };
}

interface Authority {
  pem: string;
  issue(commonName: string, use: 'server' | 'client', names?: { dns?: string[]; ips?: string[] }): { cert: string; key: string };
}

let serial = 1;

/** A test certificate authority that issues server and client certificates. */
export function testAuthority(name: string): Authority {
  const caKeys = keys();
  const make = (subject: string, publicKey: forge.pki.PublicKey) => {
    const cert = forge.pki.createCertificate();
    cert.publicKey = publicKey;
    cert.serialNumber = (serial++).toString(16).padStart(2, '0');
    cert.validity.notBefore = new Date(Date.now() - 3_600_000);
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    cert.setSubject([{ name: 'commonName', value: subject }]);
    return cert;
  };
  const ca = make(name, caKeys.publicKey);
  ca.setIssuer(ca.subject.attributes);
  ca.setExtensions([{ name: 'basicConstraints', cA: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true }]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());
  return {
    pem: forge.pki.certificateToPem(ca),
    issue(commonName, use, names = {}) {
      const leafKeys = keys();
      const leaf = make(commonName, leafKeys.publicKey);
      leaf.setIssuer(ca.subject.attributes);
      const altNames = [...(names.dns ?? []).map((value) => ({ type: 2, value })), ...(names.ips ?? []).map((ip) => ({ type: 7, ip }))];
      leaf.setExtensions([
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: use === 'server', clientAuth: use === 'client' },
        ...(altNames.length > 0 ? [{ name: 'subjectAltName', altNames }] : []),
      ]);
      leaf.sign(caKeys.privateKey, forge.md.sha256.create());
      return { cert: forge.pki.certificateToPem(leaf), key: leafKeys.pem };
    },
  };
}
