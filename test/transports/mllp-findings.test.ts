/**
 * Issue 33's MLLP findings, with Debian's `mllp_send` (python3-hl7) where it can show them and raw sockets where it
 * cannot (it always sends the final carriage return): a frame ending in 0x1C alone is answered at once; a frame that
 * holds no HL7 is answered AR and not handed on; a NAK never carries a framing byte inside its frame.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import type { ServerCertificate } from '../../service/tls/server-certificate.js';
import { Admission } from '../../service/transports/admission.js';
import { ChannelListeners } from '../../service/transports/sockets.js';
import { memoryLogger } from '../helpers/logger.js';
import { RecordingHandler, adt, channel, freePort, msaOf } from './fixtures.js';
import { mllpRequest } from './peers.js';

const pair = generateSelfSigned('localhost');
const certificate: ServerCertificate = { ...pair, source: 'generated', fingerprint256: '', validTo: new Date() };
const folder = mkdtempSync(join(tmpdir(), 'junction-mllp-send-'));

/** Runs the real mllp_send with `payload` as its file (messages separated by 0x1C, as it reads them); resolves with its stdout bytes. */
function mllpSend(port: number, name: string, payload: Buffer): Promise<Buffer> {
  const file = join(folder, name);
  writeFileSync(file, payload);
  return new Promise((resolve, reject) => {
    execFile('mllp_send', ['-p', String(port), '-f', file, '127.0.0.1'], { encoding: 'buffer', timeout: 10_000 }, (err, stdout, stderr) => {
      if (err !== null) reject(new Error(`mllp_send failed: ${err.message} ${stderr.toString()}`));
      else resolve(stdout);
    });
  });
}

describe('MLLP findings (issue 33)', () => {
  let listeners: ChannelListeners | undefined;
  afterEach(async () => {
    await listeners?.stop();
    listeners = undefined;
  });

  async function listen() {
    const port = await freePort();
    const record = channel({ tcpPort: port, tcpFraming: 'mllp' });
    const handler = new RecordingHandler();
    const log = memoryLogger();
    const registry = new Registry();
    listeners = new ChannelListeners({
      handler,
      source: () => Promise.resolve([record]),
      certificate,
      trustedCAs: [],
      // The idle timeout is long: an answer that waits for it would fail these tests.
      limits: { maxMessageBytes: 1024 * 1024, idleTimeoutMs: 60_000, maxConnectionsPerChannel: 10 },
      admission: new Admission({ perAddress: 10, total: 100, logger: log.logger, registry }),
      logger: log.logger,
    });
    await listeners.start();
    return { port, handler, lines: log.lines, registry, label: `channel:${record.name}` };
  }

  it('answers a frame that ends in 0x1C without the carriage return at once', async () => {
    const { port, handler } = await listen();
    const reply = await mllpRequest(port, '127.0.0.1', Buffer.from([0x0b, ...Buffer.from(adt('NO-CR')), 0x1c]), 3_000);
    expect(reply, 'a reply within 3 s').not.toBeNull();
    expect(msaOf(reply ?? Buffer.alloc(0))).toEqual({ code: 'AA', controlId: 'NO-CR' });
    expect(handler.got).toHaveLength(1);
  });

  it('answers AR to a frame that holds no HL7 (sent by mllp_send), hands nothing on, logs and counts it', async () => {
    const { port, handler, lines, registry, label } = await listen();
    const out = await mllpSend(port, 'not-hl7.txt', Buffer.from('hello, this is not an HL7 message\x1c'));
    const text = out.toString('latin1');
    expect(text).toContain('MSA|AR||the MLLP frame does not hold an HL7 v2 message');
    expect(handler.got).toHaveLength(0);
    expect(lines.some((l) => l.reason === 'not_hl7' && l.listener === label && typeof l.start === 'string' && (l.start).startsWith('hello'))).toBe(true);
    const metric = await registry.getSingleMetric('junction_inbound_refusals_total')?.get();
    expect(metric?.values.find((v) => v.labels.reason === 'not_hl7')?.value).toBe(1);
  });

  it('keeps the connection after a frame that is not HL7: the next message on it is handled', async () => {
    const { port, handler } = await listen();
    const out = await mllpSend(port, 'mixed.txt', Buffer.concat([Buffer.from('garbage\x1c'), Buffer.from(adt('AFTER')), Buffer.from('\x1c')]));
    expect(out.toString('latin1')).toContain('MSA|AR|');
    expect(out.toString('latin1')).toContain('MSA|AA|AFTER');
    expect(handler.got).toHaveLength(1);
  });

  it('sends the AR for an interleaved start byte (from mllp_send) without any framing byte inside its frame', async () => {
    const { port, handler } = await listen();
    // A 0x0B inside the MSH: the sending application's name carries it.
    const broken = Buffer.from(adt('INTERLEAVED').replace('|LAB|', '|LA\x0bB|'), 'latin1');
    const out = await mllpSend(port, 'interleaved.txt', Buffer.concat([broken, Buffer.from('\x1c')]));
    expect(out[0]).toBe(0x0b);
    const end = out.indexOf(0x1c);
    expect(end).toBeGreaterThan(0);
    const inside = out.subarray(1, end);
    expect(inside.includes(0x0b)).toBe(false);
    expect(msaOf(inside)).toEqual({ code: 'AR', controlId: 'INTERLEAVED' });
    expect(inside.toString('latin1')).toContain('a new message (0x0B) began before the previous one ended');
    expect(handler.got).toHaveLength(0);
  });

  it('sends no framing byte inside the AR for an interleaved start byte on a raw socket either', async () => {
    const { port } = await listen();
    const framed = frameMllp(Buffer.from(adt('RAW-0B').replace('|CLINIC|', '|CLI\x0bNIC|'), 'latin1'));
    const reply = await mllpRequest(port, '127.0.0.1', framed, 3_000);
    expect(reply).not.toBeNull();
    expect((reply as Buffer).includes(0x0b)).toBe(false);
    expect(msaOf(reply as Buffer).code).toBe('AR');
  });
});
