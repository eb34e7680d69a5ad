/** Channel listeners kept in line with the channels: bind failures, moves while traffic flows, disable, stop. */
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import type { ServerCertificate } from '../../service/tls/server-certificate.js';
import { ChannelListeners } from '../../service/transports/sockets.js';
import { memoryLogger } from '../helpers/logger.js';
import { until } from '../helpers/wait.js';
import { RecordingHandler, adt, channel, freePort, hl7Send, msaOf, rawPeer } from './fixtures.js';
import { freePorts } from '../helpers/process.js';

const pair = generateSelfSigned('localhost');
const certificate: ServerCertificate = { ...pair, source: 'generated', fingerprint256: '', validTo: new Date() };

/** Resolves with the error code of a connection attempt, or 'connected'. */
async function connectOutcome(port: number): Promise<string> {
  const result = await rawPeer(port, (socket) => {
    socket.destroy();
  });
  return result.closedBy === 'error' ? (result.error ?? 'error') : 'connected';
}

describe('channel listeners follow the channels', () => {
  let listeners: ChannelListeners | undefined;
  let blocker: Server | undefined;
  afterEach(async () => {
    await listeners?.stop();
    listeners = undefined;
    if (blocker?.listening === true) await new Promise<void>((resolve) => blocker?.close(() => resolve()));
  });

  function build(channels: { list: ChannelRecord[] }, handler = new RecordingHandler()) {
    const log = memoryLogger();
    listeners = new ChannelListeners({
      handler,
      source: () => Promise.resolve([...channels.list]),
      certificate,
      trustedCAs: [],
      limits: { maxMessageBytes: 1024 * 1024, idleTimeoutMs: 10_000, maxConnectionsPerChannel: 10 },
      logger: log.logger,
    });
    return { listeners, handler, lines: log.lines };
  }

  it('fails a channel whose port is taken with a clear reason, keeps the others, and binds it once the port is free', async () => {
    const [taken, free] = (await freePorts(2)) as [number, number];
    blocker = createServer();
    await new Promise<void>((resolve) => blocker?.listen(taken, '127.0.0.1', resolve));
    const a = channel({ tcpPort: taken });
    const b = channel({ tcpPort: free });
    const { listeners: l, lines } = build({ list: [a, b] });
    await l.start();
    expect(l.state(a._id)).toMatchObject({ state: 'failed', host: '127.0.0.1', port: taken, error: `port ${taken} is already in use by another program` });
    expect(Date.parse(l.state(a._id)?.since ?? '')).not.toBeNaN();
    expect(l.state(b._id)).toMatchObject({ state: 'listening', port: free });
    expect(l.bound()).toEqual([{ protocol: 'tcp', port: free }]);
    expect(lines.some((line) => line.level === 40 && line.msg === 'a channel listener could not start')).toBe(true);
    expect(msaOf((await hl7Send(free, [adt('B-1')]))[0] ?? '').controlId).toBe('B-1');

    await new Promise<void>((resolve) => blocker?.close(() => resolve()));
    l.changed();
    await l.settled();
    expect(l.state(a._id)?.state).toBe('listening');
    expect(msaOf((await hl7Send(taken, [adt('A-1')]))[0] ?? '').controlId).toBe('A-1');
  });

  it('names the channel that holds a port when two channels ask for the same one', async () => {
    const port = await freePort();
    const a = channel({ tcpPort: port, name: 'first' });
    const b = channel({ tcpPort: port, name: 'second' });
    const { listeners: l } = build({ list: [a, b] });
    await l.start();
    const states = [l.state(a._id), l.state(b._id)];
    expect(states.map((s) => s?.state).sort()).toEqual(['failed', 'listening']);
    expect(states.find((s) => s?.state === 'failed')?.error).toMatch(/^port \d+ is already in use by the channel '(first|second)'$/);
  });

  it('moves a listener whose port changes while a client sends: what was read is answered, the new port serves, the old refuses', async () => {
    const [oldPort, newPort] = (await freePorts(2)) as [number, number];
    const channels = { list: [channel({ tcpPort: oldPort })] };
    const handler = new RecordingHandler();
    handler.delay = (_m, index) => (index === 0 ? 200 : 0);
    const { listeners: l } = build(channels, handler);
    await l.start();
    const id = channels.list[0]?._id ?? '';
    const sending = rawPeer(oldPort, (socket) => {
      socket.write(Buffer.concat(['MOVE-1', 'MOVE-2', 'MOVE-3'].map((c) => frameMllp(Buffer.from(adt(c))))));
    });
    await until('the first message with the handler', () => (handler.got.length > 0 ? true : undefined));
    channels.list = [{ ...(channels.list[0] as ChannelRecord), tcpPort: newPort }];
    l.changed();
    await l.settled();
    expect(l.state(id)).toMatchObject({ state: 'listening', port: newPort });
    const old = await sending;
    expect(old.replies.map((r) => msaOf(r).controlId)).toEqual(['MOVE-1', 'MOVE-2', 'MOVE-3']);
    expect(old.closedBy).toBe('server');
    expect(msaOf((await hl7Send(newPort, [adt('MOVED-1')]))[0] ?? '').controlId).toBe('MOVED-1');
    expect(await connectOutcome(oldPort)).toBe('ECONNREFUSED');
  });

  it('keeps the listener when other fields change, and hands later messages with the new record', async () => {
    const port = await freePort();
    const channels = { list: [channel({ tcpPort: port, name: 'before' })] };
    const { listeners: l, handler } = build(channels);
    await l.start();
    const since = l.state(channels.list[0]?._id ?? '')?.since;
    channels.list = [{ ...(channels.list[0] as ChannelRecord), name: 'after' }];
    // Many calls while a sync runs coalesce; settled() waits for all of them.
    l.changed();
    l.changed();
    l.changed();
    await l.settled();
    expect(l.state(channels.list[0]?._id ?? '')?.since).toBe(since);
    await hl7Send(port, [adt('RENAMED')]);
    expect(handler.got[0]?.channel.name).toBe('after');
  });

  it('closes the port of a channel that is gone from the source (disabled, deleted, type changed)', async () => {
    const port = await freePort();
    const channels = { list: [channel({ tcpPort: port })] };
    const { listeners: l } = build(channels);
    await l.start();
    expect(await connectOutcome(port)).toBe('connected');
    const id = channels.list[0]?._id ?? '';
    channels.list = [];
    l.changed();
    await l.settled();
    expect(l.state(id)).toBeUndefined();
    expect(l.bound()).toEqual([]);
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');
  });

  it('stop() answers a message in flight, then closes the port', async () => {
    const port = await freePort();
    const { listeners: l, handler } = build({ list: [channel({ tcpPort: port })] });
    handler.delay = () => 300;
    await l.start();
    const idle = rawPeer(port, () => undefined);
    const sending = rawPeer(port, (socket) => {
      socket.write(frameMllp(Buffer.from(adt('LAST-1'))));
    });
    await until('the message with the handler', () => (handler.got.length > 0 ? true : undefined));
    await l.stop();
    listeners = undefined;
    const answered = await sending;
    expect(answered.replies.map((r) => msaOf(r).controlId)).toEqual(['LAST-1']);
    expect((await idle).closedBy).toBe('server');
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');
  });

  it('logs a refused connection when a channel has as many as it may', async () => {
    const port = await freePort();
    const log = memoryLogger();
    const handler = new RecordingHandler();
    listeners = new ChannelListeners({
      handler,
      source: () => Promise.resolve([channel({ tcpPort: port })]),
      certificate,
      trustedCAs: [],
      limits: { maxMessageBytes: 1024, idleTimeoutMs: 10_000, maxConnectionsPerChannel: 1 },
      logger: log.logger,
    });
    await listeners.start();
    const first = rawPeer(port, (socket) => {
      socket.write(frameMllp(Buffer.from(adt('FIRST'))));
    });
    await until('the first connection accepted', () => (handler.got.length > 0 ? true : undefined));
    const second = await rawPeer(port, () => undefined);
    expect(second.closedBy).not.toBe('timeout');
    await until('the refusal logged', () => (log.lines.some((l) => String(l.msg).includes('refused a connection')) ? true : undefined));
    await listeners.stop();
    listeners = undefined;
    expect((await first).closedBy).toBe('server');
  });
});
