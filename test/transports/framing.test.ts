/** A tcp channel's listener on real sockets: MLLP and stream framing, order, size, garbage and the idle timeout. */
import { afterEach, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { ChannelListeners } from '../../service/transports/sockets.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import type { ServerCertificate } from '../../service/tls/server-certificate.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import { memoryLogger } from '../helpers/logger.js';
import { until } from '../helpers/wait.js';
import { RecordingHandler, adt, byteByByte, channel, freePort, hl7Send, msaOf, rawPeer } from './fixtures.js';

const pair = generateSelfSigned('localhost');
const certificate: ServerCertificate = { ...pair, source: 'generated', fingerprint256: '', validTo: new Date() };

describe('tcp channel listener: framing', () => {
  let listeners: ChannelListeners | undefined;
  afterEach(async () => {
    await listeners?.stop();
    listeners = undefined;
  });

  async function listen(fields: Partial<ChannelRecord> = {}, limits: Partial<{ maxMessageBytes: number; idleTimeoutMs: number }> = {}) {
    const port = await freePort();
    const record = channel({ tcpPort: port, ...fields });
    const handler = new RecordingHandler();
    const log = memoryLogger();
    listeners = new ChannelListeners({
      handler,
      source: () => Promise.resolve([record]),
      certificate,
      trustedCAs: [],
      limits: { maxMessageBytes: 16 * 1024 * 1024, idleTimeoutMs: 10_000, maxConnectionsPerChannel: 10, ...limits },
      logger: log.logger,
    });
    await listeners.start();
    expect(listeners.state(record._id)?.state).toBe('listening');
    return { port, record, handler, lines: log.lines };
  }

  it('answers a message sent by node-hl7-client with the reply, and hands the message path what it needs', async () => {
    const { port, record, handler } = await listen();
    const acks = await hl7Send(port, [adt('MSG0001')]);
    expect(msaOf(acks[0] ?? '')).toEqual({ code: 'AA', controlId: 'MSG0001' });
    const got = handler.got[0];
    expect(got?.message.toString()).toContain('ADT^A01|MSG0001');
    expect(got).toMatchObject({ channel: { _id: record._id }, framing: 'mllp', secure: false, peer: { address: '127.0.0.1' }, local: { port } });
    expect(got?.peer.certificate).toBeUndefined();
    expect(got?.receivedAt).toBeInstanceOf(Date);
  });

  it('reassembles a message written one byte at a time', async () => {
    const { port, handler } = await listen();
    const message = Buffer.from(adt('BYTES1'));
    const result = await rawPeer(port, async (socket) => {
      await byteByByte(socket, frameMllp(message));
    }, 1);
    expect(result.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'BYTES1' }]);
    expect(handler.got[0]?.message.equals(message)).toBe(true);
  });

  it('answers three messages on one connection in order, one at a time, even when the first is the slowest', async () => {
    const { port, handler } = await listen();
    handler.delay = (_m, index) => (index === 0 ? 150 : 0);
    const result = await rawPeer(port, (socket) => {
      socket.write(Buffer.concat(['A01-1', 'A08-2', 'A08-3'].map((id) => frameMllp(Buffer.from(adt(id))))));
    }, 3);
    expect(result.replies.map((r) => msaOf(r).controlId)).toEqual(['A01-1', 'A08-2', 'A08-3']);
    expect(handler.finished).toEqual(['A01-1', 'A08-2', 'A08-3']);
    expect(handler.maxConcurrent).toBe(1);
  });

  it('stops reading while many messages wait, and still answers every one in order', async () => {
    const { port, handler } = await listen();
    handler.delay = () => 2;
    const ids = Array.from({ length: 60 }, (_v, i) => `MANY-${i}`);
    const result = await rawPeer(port, (socket) => {
      // Big enough that they arrive in several chunks, the later ones only read after the queue went down.
      socket.write(Buffer.concat(ids.map((id) => frameMllp(Buffer.from(adt(id, 'w'.repeat(4_000)))))));
    }, ids.length);
    expect(result.replies.map((r) => msaOf(r).controlId)).toEqual(ids);
    expect(handler.maxConcurrent).toBe(1);
  });

  it('carries a 5 MB message whole', async () => {
    const { port, handler } = await listen();
    const filler = 'x'.repeat(5 * 1024 * 1024);
    const acks = await hl7Send(port, [adt('BIG1', filler)]);
    expect(msaOf(acks[0] ?? '').controlId).toBe('BIG1');
    expect(handler.got[0]?.message.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(handler.got[0]?.message.toString().includes(filler)).toBe(true);
  });

  it('stream framing: reads until the sender half-closes, then writes the reply and ends', async () => {
    const { port, handler } = await listen({ tcpFraming: 'stream' });
    const message = Buffer.from(adt('STREAM1'));
    const result = await rawPeer(port, (socket) => {
      socket.write(message.subarray(0, 20));
      socket.end(message.subarray(20));
    });
    expect(result.closedBy).toBe('server');
    expect(msaOf(result.data)).toEqual({ code: 'AA', controlId: 'STREAM1' });
    expect(result.data[0]).not.toBe(0x0b);
    expect(handler.got[0]).toMatchObject({ framing: 'stream' });
    expect(handler.got[0]?.message.equals(message)).toBe(true);
  });

  it('auto framing: a first byte of 0x0B is MLLP, anything else one stream message', async () => {
    const { port, handler } = await listen({ tcpFraming: 'auto' });
    const mllp = await rawPeer(port, (socket) => {
      socket.write(frameMllp(Buffer.from(adt('AUTO-MLLP'))));
    }, 1);
    expect(mllp.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'AUTO-MLLP' }]);
    const stream = await rawPeer(port, (socket) => {
      socket.end(adt('AUTO-STREAM'));
    });
    expect(stream.closedBy).toBe('server');
    expect(msaOf(stream.data)).toEqual({ code: 'AA', controlId: 'AUTO-STREAM' });
    expect(handler.got.map((m) => m.framing)).toEqual(['mllp', 'stream']);
  });

  it('closes a connection that sends bytes before a start block, answering nothing, and keeps serving others', async () => {
    const { port, handler, lines } = await listen({ tcpFraming: 'mllp' });
    const garbage = await rawPeer(port, (socket) => {
      socket.write(Buffer.concat([Buffer.from('GET / HTTP/1.1\r\n\r\n'), frameMllp(Buffer.from(adt('AFTER-GARBAGE')))]));
    });
    expect(garbage.closedBy).toBe('server');
    expect(garbage.data.length).toBe(0);
    expect(handler.got).toHaveLength(0);
    expect(lines.some((l) => l.msg === 'closing a connection that sent something unreadable' && l.channel !== undefined && l.peer !== undefined)).toBe(true);
    const acks = await hl7Send(port, [adt('SECOND')]);
    expect(msaOf(acks[0] ?? '').controlId).toBe('SECOND');
  });

  it('answers a frame over the size limit that starts with a readable MSH with a framed AR, then closes', async () => {
    const { port, handler } = await listen({}, { maxMessageBytes: 1_000 });
    const result = await rawPeer(port, (socket) => {
      socket.write(frameMllp(Buffer.from(adt('TOO-BIG', 'y'.repeat(5_000)))));
    });
    expect(result.closedBy).toBe('server');
    expect(result.replies).toHaveLength(1);
    const ack = result.replies[0]?.toString() ?? '';
    expect(msaOf(ack)).toEqual({ code: 'AR', controlId: 'TOO-BIG' });
    expect(ack).toContain('longer than the 1000 bytes allowed');
    expect(handler.got).toHaveLength(0);
  });

  it('answers a stream message over the size limit with an unframed AR, then closes', async () => {
    const { port } = await listen({ tcpFraming: 'stream' }, { maxMessageBytes: 1_000 });
    const result = await rawPeer(port, (socket) => {
      socket.write(adt('STREAM-BIG', 'z'.repeat(5_000)));
    });
    expect(result.closedBy).toBe('server');
    expect(result.data[0]).not.toBe(0x0b);
    expect(msaOf(result.data)).toEqual({ code: 'AR', controlId: 'STREAM-BIG' });
  });

  it('answers earlier messages on the connection before refusing the garbage after them', async () => {
    const { port } = await listen({ tcpFraming: 'mllp' });
    const result = await rawPeer(port, (socket) => {
      socket.write(Buffer.concat([frameMllp(Buffer.from(adt('GOOD-1'))), Buffer.from('junk')]));
    });
    expect(result.closedBy).toBe('server');
    expect(result.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'GOOD-1' }]);
  });

  it('closes an idle connection after the idle timeout, but not while its message is with the handler', async () => {
    const { port, handler } = await listen({}, { idleTimeoutMs: 200 });
    const started = Date.now();
    const idle = await rawPeer(port, () => undefined);
    expect(idle.closedBy).toBe('server');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    handler.delay = () => 500;
    const slow = await rawPeer(port, (socket) => {
      socket.write(frameMllp(Buffer.from(adt('SLOW-1'))));
    });
    expect(slow.closedBy).toBe('server');
    expect(slow.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'SLOW-1' }]);
  });

  it('ends the connection when the reply is null', async () => {
    const { port, handler } = await listen();
    handler.reply = () => null;
    const result = await rawPeer(port, (socket) => {
      socket.write(frameMllp(Buffer.from(adt('NULL-1'))));
    });
    expect(result.closedBy).toBe('server');
    expect(result.data.length).toBe(0);
    expect(handler.got).toHaveLength(1);
  });

  it('survives a sender that resets while its message is with the handler, and completes the handling', async () => {
    const { port, handler, lines } = await listen();
    handler.delay = () => 200;
    const result = await rawPeer(port, (socket) => {
      socket.write(frameMllp(Buffer.from(adt('RESET-1'))));
      socket.write(frameMllp(Buffer.from(adt('RESET-2'))));
      const poll = setInterval(() => {
        if (handler.got.length > 0) {
          clearInterval(poll);
          socket.resetAndDestroy();
        }
      }, 5);
    });
    expect(result.closedBy).not.toBe('timeout');
    await until('the dropped reply logged', () => (lines.some((l) => String(l.msg).includes('reply is dropped')) ? true : undefined), 3_000);
    expect(handler.finished).toEqual(['RESET-1']);
    const acks = await hl7Send(port, [adt('AFTER-RESET')]);
    expect(msaOf(acks[0] ?? '').controlId).toBe('AFTER-RESET');
  });
});
