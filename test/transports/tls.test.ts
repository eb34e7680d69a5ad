/** A tls channel's listener: client certificates presented, absent, required, and passed to the message path. */
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import type { ServerCertificate } from '../../service/tls/server-certificate.js';
import { ChannelListeners } from '../../service/transports/sockets.js';
import { memoryLogger } from '../helpers/logger.js';
import { until } from '../helpers/wait.js';
import { RecordingHandler, adt, channel, freePort, hl7Send, msaOf, rawPeer } from './fixtures.js';

const server = generateSelfSigned('localhost');
const certificate: ServerCertificate = { ...server, source: 'generated', fingerprint256: '', validTo: new Date() };
const lab = generateSelfSigned('lab.clinic.example');

describe('tls channel listener', () => {
  let listeners: ChannelListeners | undefined;
  afterEach(async () => {
    await listeners?.stop();
    listeners = undefined;
  });

  async function listen(fields: Partial<ChannelRecord> = {}) {
    const port = await freePort();
    const handler = new RecordingHandler();
    const log = memoryLogger();
    listeners = new ChannelListeners({
      handler,
      source: () => Promise.resolve([channel({ tcpPort: port, type: 'tls', ...fields })]),
      certificate,
      trustedCAs: [lab.cert],
      limits: { maxMessageBytes: 1024 * 1024, idleTimeoutMs: 10_000, maxConnectionsPerChannel: 10 },
      logger: log.logger,
    });
    await listeners.start();
    expect(listeners.bound()).toEqual([{ protocol: 'tls', port }]);
    return { port, handler, lines: log.lines };
  }

  const tlsTo = (client?: { cert: string; key: string }) => ({ ca: server.cert, servername: 'localhost', ...(client ?? {}) });

  it('passes a presented client certificate to the message path, as the HTTPS port does', async () => {
    const { port, handler } = await listen();
    const acks = await hl7Send(port, [adt('TLS-1')], tlsTo(lab));
    expect(msaOf(acks[0] ?? '')).toEqual({ code: 'AA', controlId: 'TLS-1' });
    const x509 = new X509Certificate(lab.cert);
    expect(handler.got[0]).toMatchObject({ secure: true, framing: 'mllp' });
    expect(handler.got[0]?.peer.certificate).toEqual({ fingerprint256: x509.fingerprint256, fingerprint: x509.fingerprint, subjectCN: 'lab.clinic.example', authorized: true });
  });

  it('serves a client without a certificate when the channel does not require one', async () => {
    const { port, handler } = await listen();
    const acks = await hl7Send(port, [adt('TLS-3')], tlsTo());
    expect(msaOf(acks[0] ?? '').controlId).toBe('TLS-3');
    expect(handler.got[0]?.peer.certificate).toBeUndefined();
  });

  it('closes a connection without a certificate after the handshake when the channel requires one', async () => {
    const { port, handler, lines } = await listen({ requireClientCertificate: true });
    const outcome = await new Promise<{ secure: boolean; data: number }>((resolve) => {
      let secure = false;
      let data = 0;
      const socket = connect({ port, host: '127.0.0.1', ...tlsTo() }, () => {
        secure = true;
        socket.write(frameMllp(Buffer.from(adt('NO-CERT'))));
      });
      socket.on('data', (chunk: Buffer) => (data += chunk.length));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ secure, data }));
    });
    expect(outcome).toEqual({ secure: true, data: 0 });
    expect(handler.got).toHaveLength(0);
    expect(lines.some((l) => l.level === 30 && String(l.msg).includes('requires one'))).toBe(true);
    const acks = await hl7Send(port, [adt('WITH-CERT')], tlsTo(lab));
    expect(msaOf(acks[0] ?? '').controlId).toBe('WITH-CERT');
  });

  it('logs a failed handshake and keeps serving', async () => {
    const { port, lines } = await listen();
    const refused = await rawPeer(port, (socket) => {
      socket.write('GET / HTTP/1.1\r\nhost: junction\r\n\r\n');
    });
    expect(refused.closedBy).not.toBe('timeout');
    await until('the handshake failure logged', () => (lines.some((l) => l.msg === 'TLS handshake failed') ? true : undefined), 5_000);
    expect(msaOf((await hl7Send(port, [adt('AFTER')], tlsTo()))[0] ?? '').controlId).toBe('AFTER');
  });

  it('reads a stream message over TLS until the client half-closes', async () => {
    const { port, handler } = await listen({ tcpFraming: 'stream' });
    const reply = await new Promise<string>((resolve, reject) => {
      const parts: Buffer[] = [];
      const options: ConnectionOptions = { port, host: '127.0.0.1', ...tlsTo() };
      // The server must see a half-close, not a full one.
      const socket = connect({ ...options, allowHalfOpen: true } as ConnectionOptions, () => {
        socket.end(adt('TLS-STREAM'));
      });
      socket.on('data', (chunk: Buffer) => parts.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(parts).toString()));
    });
    expect(msaOf(reply)).toEqual({ code: 'AA', controlId: 'TLS-STREAM' });
    expect(handler.got[0]).toMatchObject({ framing: 'stream', secure: true });
  });
});
