/**
 * HL7 peers for the message path's end-to-end tests, built on published libraries nobody here wrote: node-hl7-server
 * as the MLLP upstream (it answers each message with its own ACK) and node-hl7-client as the sender (in
 * test/transports/fixtures.ts, `hl7Send`), plus raw sockets for what those libraries cannot do (many small writes,
 * pipelined messages, an upstream that never answers).
 */
import { generateKeyPairSync } from 'node:crypto';
import { connect as netConnect, createServer } from 'node:net';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import forge from 'node-forge';
import { expect } from 'vitest';
import { Server } from 'node-hl7-server';
import type { InboundRequest, SendResponse } from 'node-hl7-server';
import { connect as tlsConnect } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { frameMllp, MllpDecoder } from '../../service/domain/codecs/mllp-framing.js';
import type { BodyRef } from '../../service/storage/bodies/bodies.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { completedTransaction } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';
import { freePort } from '../transports/fixtures.js';

export interface Hl7Upstream {
  port: number;
  /** The messages it received, as text, in order. */
  received: string[];
  close(): Promise<void>;
}

/**
 * node-hl7-server 2.5.0 as an upstream. It answers AA (or `answer(message)`). The library keeps every byte a
 * connection ever sent in one buffer and parses the first message in it again for each later one, so on a reused
 * connection it would acknowledge the first message over and over; this upstream therefore ends each connection
 * after its ACK, and Junction's pool opens a fresh one for the next message.
 */
export async function hl7Upstream(answer: (message: string) => 'AA' | 'AE' | 'AR' = () => 'AA'): Promise<Hl7Upstream> {
  const port = await freePort();
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = new Server({ bindAddress: '127.0.0.1' });
  const inbound = server.createInbound({ port }, (req: InboundRequest, res: SendResponse) => {
    const text = req.getMessage().toString();
    received.push(text);
    void res.sendResponse(answer(text)).then(() => (res as unknown as { _socket: Socket })._socket.end());
  });
  inbound.on('client.connect', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    inbound.once('listen', resolve);
    inbound.once('error', reject);
  });
  return {
    port,
    received,
    async close() {
      for (const socket of sockets) socket.destroy();
      await inbound.close();
    },
  };
}

/** An upstream that accepts connections and reads, but never answers. */
export async function silentUpstream(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: NetServer = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.resume();
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An ORU^R01 result message of about `size` bytes with this control id. */
export function oru(controlId: string, size = 600): string {
  const head = [
    `MSH|^~\\&|ANALYSER|LAB|JUNCTION|CLINIC|20261124101500||ORU^R01^ORU_R01|${controlId}|P|2.5.1`,
    'PID|1||55501^^^CLINIC^MR||MOYO^GRACE||19800212|F',
    'OBR|1|ORD448||GLU^Glucose^L|||20261124100000',
    'OBX|1|NM|GLU^Glucose^L||5.4|mmol/L|3.9-5.8|N|||F',
  ];
  const text = `${head.join('\r')}\r`;
  const pad = Math.max(0, size - text.length - 20);
  return pad === 0 ? text : `${text}NTE|1||${'x'.repeat(pad)}\r`;
}

/** What a TLS peer got back: the replies, and how the connection ended. */
export interface TlsExchange {
  replies: Buffer[];
  closedBy: 'server' | 'client' | 'timeout' | 'error';
  error?: string;
  /** Whether the TLS handshake completed (the server accepted the connection before anything else). */
  secured: boolean;
}

/**
 * Connects with TLS (`tls.connect`, trusting `options.ca`), writes `messages` MLLP-framed once secured, and collects
 * replies until `replies` have come, the server closes, or `timeoutMs`.
 */
export function tlsPeer(port: number, options: ConnectionOptions, messages: string[], replies = messages.length, timeoutMs = 10_000): Promise<TlsExchange> {
  return new Promise((resolve) => {
    const decoder = new MllpDecoder({ maxMessageBytes: 64 * 1024 * 1024 });
    const got: Buffer[] = [];
    let secured = false;
    let done = false;
    const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ...options });
    const finish = (closedBy: TlsExchange['closedBy'], error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ replies: got, closedBy, secured, ...(error === undefined ? {} : { error }) });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('secureConnect', () => {
      secured = true;
      for (const message of messages) socket.write(frameMllp(Buffer.from(message)));
    });
    socket.on('data', (chunk: Buffer) => {
      got.push(...decoder.push(chunk).messages);
      if (got.length >= replies) finish('client');
    });
    socket.on('end', () => finish('server'));
    socket.on('close', () => finish('server'));
    socket.on('error', (err: NodeJS.ErrnoException) => finish('error', err.code ?? err.message));
  });
}

/** Transactions of a channel, newest first. */
export function transactionsOf(t: TestJunction, channelID: string): Promise<TransactionRecord[]> {
  return t.junction.transactions.page({ channelID: [channelID] }, { limit: 100 });
}

/** The stored, completed transaction whose request body carries this MSH-10 control id. */
export async function transactionOf(t: TestJunction, controlId: string): Promise<TransactionRecord> {
  const id = await until(`the transaction of ${controlId}`, async () => {
    for (const record of await t.junction.transactions.page({}, { limit: 100 })) {
      const body = record.request.body;
      if (body !== undefined && (await t.junction.bodies.readText(body)).includes(`|${controlId}|`)) return record._id;
    }
    return undefined;
  });
  return completedTransaction(t, id);
}

/** A tcp or tls channel as the API answers it, with the fields these tests read. */
export interface SocketChannelAnswer {
  _id: string;
  tcpPort: number;
  listener?: { state: string; host?: string; port: number; error?: string };
}

/**
 * Creates a public tcp channel on a free loopback port with one primary mllp route to `upstreamPort` (`fields`
 * override any of it), and checks that the answer shows its listener bound.
 */
export async function listeningChannel(t: TestJunction, admin: { authorization: string }, upstreamPort: number, name: string, fields: Record<string, unknown> = {}): Promise<SocketChannelAnswer> {
  const tcpPort = await freePort();
  const res = await t.request('/channels', {
    method: 'POST',
    headers: admin,
    json: { name, type: 'tcp', tcpHost: '127.0.0.1', tcpPort, authType: 'public', routes: [{ name: 'lab system', type: 'mllp', host: '127.0.0.1', port: upstreamPort, primary: true }], ...fields },
  });
  expect(res.status, res.text).toBe(201);
  const channel = res.body as SocketChannelAnswer;
  expect(channel.listener).toMatchObject({ state: 'listening', port: tcpPort });
  return channel;
}

/** A stored body as text (empty when there is none). */
export async function bodyText(t: TestJunction, ref: BodyRef | undefined): Promise<string> {
  return ref === undefined ? '' : t.junction.bodies.readText(ref);
}

/**
 * A plain TCP upstream for `tcp` routes: reads each connection to its end (the sender half-closes), records what it
 * read, then writes `answer(message)` and ends (or destroys the connection without a word when the answer is null).
 */
export async function streamUpstream(answer: (message: Buffer) => Buffer | string | null): Promise<{ port: number; received: Buffer[]; close: () => Promise<void> }> {
  const received: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: NetServer = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('end', () => {
      const message = Buffer.concat(parts);
      received.push(message);
      const reply = answer(message);
      if (reply === null) socket.destroy();
      else socket.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port held by the test whose connections are reset (an upstream that is down) until `up()`, after which each
 * connection is piped to `targetPort`. Holding the port keeps another program from taking it meanwhile.
 */
export async function downUntilUp(targetPort: number): Promise<{ port: number; up: () => void; close: () => Promise<void> }> {
  let isUp = false;
  const sockets = new Set<Socket>();
  const server: NetServer = createServer((socket) => {
    if (!isUp) {
      socket.resetAndDestroy();
      return;
    }
    const onward = netConnect({ host: '127.0.0.1', port: targetPort });
    for (const s of [socket, onward]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    socket.pipe(onward).pipe(socket);
    socket.once('close', () => onward.destroy());
    onward.once('close', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    up: () => (isUp = true),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A test CA and a client certificate it issued (clientAuth) for `commonName`, all PEM. */
export function issuedClientCertificate(commonName: string): { ca: string; cert: string; key: string } {
  // node:crypto makes the keys (fast); node-forge the certificates.
  const keys = () => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return {
      publicKey: forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
      privateKey: forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    };
  };
  const make = (subject: string, publicKey: forge.pki.PublicKey, serial: string) => {
    const cert = forge.pki.createCertificate();
    cert.publicKey = publicKey;
    cert.serialNumber = serial;
    cert.validity.notBefore = new Date(Date.now() - 3_600_000);
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    cert.setSubject([{ name: 'commonName', value: subject }]);
    return cert;
  };
  const caKeys = keys();
  const ca = make('Junction test CA', caKeys.publicKey, '01');
  ca.setIssuer(ca.subject.attributes);
  ca.setExtensions([{ name: 'basicConstraints', cA: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true }]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());
  const leafKeys = keys();
  const leaf = make(commonName, leafKeys.publicKey, '02');
  leaf.setIssuer(ca.subject.attributes);
  leaf.setExtensions([{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true }, { name: 'extKeyUsage', clientAuth: true }]);
  leaf.sign(caKeys.privateKey, forge.md.sha256.create());
  return { ca: forge.pki.certificateToPem(ca), cert: forge.pki.certificateToPem(leaf), key: forge.pki.privateKeyToPem(leafKeys.privateKey) };
}
