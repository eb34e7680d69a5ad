/**
 * HL7 v2 through Junction end to end: node-hl7-client and raw sockets send to a tcp channel on a real port, the
 * channel's MLLP route goes to node-hl7-server, and the transaction log is read back. Covers the cases:
 * split writes, three messages on one connection, 5 MB, a port moved under traffic, an upstream that never answers,
 * and the ACKs Junction builds when the primary route fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { readHeader } from '../../service/domain/codecs/hl7.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';
import { adt, byteByByte, freePort, hl7Send, msaOf, rawPeer } from '../transports/fixtures.js';
import { freePorts } from '../helpers/process.js';
import { hl7Upstream, listeningChannel, oru, silentUpstream, transactionOf as hl7TransactionOf } from './hl7-peers.js';
import type { Hl7Upstream, SocketChannelAnswer } from './hl7-peers.js';

describe('MLLP channels end to end', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let upstream: Hl7Upstream;

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    upstream = await hl7Upstream();
  });
  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  const mllpChannel = (name: string, fields: Record<string, unknown> = {}) => listeningChannel(t, admin, upstream.port, name, fields);
  const transactionOf = (controlId: string) => hl7TransactionOf(t, controlId);

  it('relays an ORU^R01 and an ADT^A01 from node-hl7-client to node-hl7-server and back, and stores both as sent', async () => {
    const channel = await mllpChannel('lab results');
    const acks = await hl7Send(channel.tcpPort, [oru('ORU-0001'), adt('ADT-0001')]);
    expect(acks.map(msaOf)).toEqual([
      { code: 'AA', controlId: 'ORU-0001' },
      { code: 'AA', controlId: 'ADT-0001' },
    ]);
    expect(upstream.received.map((m) => m.split('\r')[0]?.split('|')[9])).toEqual(expect.arrayContaining(['ORU-0001', 'ADT-0001']));

    const tx = await transactionOf('ORU-0001');
    expect(tx).toMatchObject({ channelID: channel._id, status: 'Successful', clientIP: '127.0.0.1', request: { method: 'POST', path: '/', port: channel.tcpPort } });
    expect(tx.request.headers['content-type']).toBe('application/hl7-v2');
    const stored = await t.junction.bodies.readText(tx.request.body ?? { path: '' });
    // The message as node-hl7-client sent it (it drops the last segment's CR) and node-hl7-server got it; framing is
    // not part of what is stored.
    expect(stored).toBe(oru('ORU-0001').replace(/\r$/, ''));
    expect(upstream.received).toContain(stored);
    expect(tx.response?.status).toBe(200);
    expect(msaOf(await t.junction.bodies.readText(tx.response?.body ?? { path: '' }))).toEqual({ code: 'AA', controlId: 'ORU-0001' });
    expect(tx.routes).toEqual([]);
  });

  it('reassembles a message sent one byte per write, and answers three messages on one connection in order', async () => {
    const channel = await mllpChannel('split and pipelined');
    const split = await rawPeer(channel.tcpPort, (socket) => byteByByte(socket, frameMllp(Buffer.from(oru('SPLIT-1', 300)))), 1);
    expect(split.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'SPLIT-1' }]);

    const three = ['ORDER-1', 'ORDER-2', 'ORDER-3'];
    const pipelined = await rawPeer(channel.tcpPort, (socket) => {
      socket.write(Buffer.concat(three.map((id) => frameMllp(Buffer.from(adt(id))))));
    }, 3);
    expect(pipelined.replies.map((r) => msaOf(r).controlId)).toEqual(three);
    // One at a time, in order, so the upstream saw them in the order sent.
    const seen = upstream.received.map((m) => readHeader(Buffer.from(m))?.controlId).filter((id) => id?.startsWith('ORDER-'));
    expect(seen).toEqual(three);
  });

  it('carries a 5 MB message whole and stores it', async () => {
    const channel = await mllpChannel('large');
    const big = oru('BIG-1', 5 * 1024 * 1024);
    const answer = await rawPeer(channel.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(big))), 1, 30_000);
    expect(answer.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'BIG-1' }]);
    // node-hl7-server hands over the text without its final CR.
    expect(upstream.received.find((m) => m.includes('|BIG-1|'))).toBe(big.replace(/\r$/, ''));
    const tx = await transactionOf('BIG-1');
    expect(tx.request.body).toMatchObject({ size: big.length, truncated: false });
  });

  it('moves the listener when the port changes, answering what was already sent', async () => {
    const channel = await mllpChannel('moving');
    // A connection sends a message before the move and one after it: both are answered.
    const before = rawPeer(channel.tcpPort, async (socket) => {
      socket.write(frameMllp(Buffer.from(adt('MOVE-1'))));
      await until('the first message to reach the upstream', () => (upstream.received.some((m) => m.includes('|MOVE-1|')) ? true : undefined));
    }, 1);
    const newPort = await freePort();
    const moved = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { tcpPort: newPort } });
    expect(moved.status, moved.text).toBe(200);
    expect((moved.body as SocketChannelAnswer).listener).toMatchObject({ state: 'listening', port: newPort });
    expect((await before).replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'MOVE-1' }]);

    const acks = await hl7Send(newPort, [adt('MOVE-2')]);
    expect(acks.map(msaOf)).toEqual([{ code: 'AA', controlId: 'MOVE-2' }]);
    const old = await rawPeer(channel.tcpPort, () => undefined, 1, 5_000);
    expect(old.closedBy).toBe('error');
    expect(old.error).toBe('ECONNREFUSED');
  });

  it('answers with an AR ACK in time when the upstream never answers, and records the failure', async () => {
    const silent = await silentUpstream();
    try {
      const tcpPort = await freePort();
      const res = await t.request('/channels', {
        method: 'POST',
        headers: admin,
        json: { name: 'silent lab', type: 'tcp', tcpHost: '127.0.0.1', tcpPort, authType: 'public', timeout: 300, routes: [{ name: 'never answers', type: 'mllp', host: '127.0.0.1', port: silent.port, primary: true }] },
      });
      expect(res.status, res.text).toBe(201);
      const started = Date.now();
      const answer = await rawPeer(tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(oru('SILENT-1')))), 1, 10_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      const [ack] = answer.replies;
      expect(msaOf(ack ?? '')).toEqual({ code: 'AR', controlId: 'SILENT-1' });
      const text = ack?.toString() ?? '';
      // Built from the inbound MSH: sending and receiving applications swapped, the reason in MSA-3 and ERR-8.
      expect(text.split('\r')[0]).toMatch(/^MSH\|\^~\\&\|JUNCTION\|CLINIC\|ANALYSER\|LAB\|\d{14}\+0000\|\|ACK\^R01\^ACK\|/);
      expect(text).toContain('did not reply within 300 ms');
      expect(text).toMatch(/\rERR\|/);
      const tx = await transactionOf('SILENT-1');
      expect(tx.status).toBe('Failed');
      expect(tx.response?.status).toBe(504);
      expect(tx.error?.message).toContain('300 ms');
    } finally {
      await silent.close();
    }
  });

  it('passes an AE from the upstream on and counts it as a 4xx, and answers AR when the upstream is unreachable', async () => {
    const rejecting = await hl7Upstream(() => 'AE');
    try {
      const [tcpPort, unreachable] = (await freePorts(2)) as [number, number];
      const res = await t.request('/channels', {
        method: 'POST',
        headers: admin,
        json: { name: 'rejecting lab', type: 'tcp', tcpHost: '127.0.0.1', tcpPort, authType: 'public', routes: [{ name: 'rejects', type: 'mllp', host: '127.0.0.1', port: rejecting.port, primary: true }] },
      });
      expect(res.status, res.text).toBe(201);
      const [ae] = await hl7Send(tcpPort, [adt('AE-1')]);
      expect(msaOf(ae ?? '').code).toBe('AE');
      const tx = await transactionOf('AE-1');
      expect(tx).toMatchObject({ status: 'Completed', response: { status: 400 } });

      const put = await t.request(`/channels/${(res.body as SocketChannelAnswer)._id}`, { method: 'PUT', headers: admin, json: { routes: [{ name: 'gone', type: 'mllp', host: '127.0.0.1', port: unreachable, primary: true }] } });
      expect(put.status, put.text).toBe(200);
      const [ar] = await hl7Send(tcpPort, [adt('GONE-1')]);
      expect(msaOf(ar ?? '')).toEqual({ code: 'AR', controlId: 'GONE-1' });
      expect(ar).toContain('could not be reached');
      expect((await transactionOf('GONE-1')).status).toBe('Failed');
    } finally {
      await rejecting.close();
    }
  });
});
