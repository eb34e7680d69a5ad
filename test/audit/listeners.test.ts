/** The audit repository's listeners on real loopback sockets: UDP, TCP and TLS, their limits, counters and stop. */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditListeners } from '../../service/audit/listeners.js';
import { frameOctetCounted } from '../../service/domain/codecs/syslog-framing.js';
import { memoryLogger } from '../helpers/logger.js';
import { freePorts } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { issuedClientCertificate } from '../messages/hl7-peers.js';
import { RecordingIntake, auditSyslog, byteByByte, certificate, closedOf, startListeners, tcpPeer, tlsPeer } from './listener-helpers.js';
import type { Started } from './listener-helpers.js';

const trusted = issuedClientCertificate('ehr.clinic.example');
const stranger = issuedClientCertificate('stranger.example');

describe('audit listeners', () => {
  let started: Started | undefined;
  const sockets: Socket[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const server of servers.splice(0)) server.close();
    await started?.listeners.stop();
    started = undefined;
  });

  async function start(...args: Parameters<typeof startListeners>) {
    started = await startListeners(...args);
    return started;
  }

  async function connect(port: number): Promise<Socket> {
    const socket = await tcpPeer(port);
    sockets.push(socket);
    return socket;
  }

  const stat = (transport: string) => started?.listeners.stats().find((s) => s.transport === transport);

  it('binds the enabled listeners on their ports and lists them for /about', async () => {
    const { listeners, ports } = await start();
    expect(listeners.bound()).toEqual([
      { protocol: 'udp', port: ports.udp },
      { protocol: 'tcp', port: ports.tcp },
      { protocol: 'tls', port: ports.tls },
    ]);
    expect(listeners.stats().map((s) => s.transport)).toEqual(['udp', 'tcp', 'tls']);
  });

  describe('UDP', () => {
    it('takes one datagram as one message, without its trailing newline, and says who sent it', async () => {
      const { intake, ports } = await start({ enabled: ['udp'] });
      const client = createSocket('udp4');
      await new Promise<void>((resolve) => client.send(`${auditSyslog(1)}\n`, ports.udp, '127.0.0.1', () => resolve()));
      await until('the datagram', () => (intake.got.length === 1 ? true : undefined));
      expect(intake.got[0]?.text).toBe(auditSyslog(1));
      expect(intake.got[0]?.from).toEqual({ transport: 'udp', address: '127.0.0.1', port: client.address().port });
      client.close();
      expect(stat('udp')).toMatchObject({ received: 1, tooLarge: 0, malformedFraming: 0 });
    });

    it('counts, logs and drops a datagram over the limit, and an empty one', async () => {
      const { intake, ports, lines } = await start({ enabled: ['udp'], limits: { maxMessageBytes: 1024 } });
      const client = createSocket('udp4');
      const send = (data: string) => new Promise<void>((resolve) => client.send(data, ports.udp, '127.0.0.1', () => resolve()));
      await send(auditSyslog(1, 'x'.repeat(2000)));
      await send('\n');
      await send(auditSyslog(2));
      await until('the last datagram', () => (intake.got.length === 1 ? true : undefined));
      client.close();
      expect(intake.texts()).toEqual([auditSyslog(2)]);
      await until('both drops counted', () => (stat('udp')?.tooLarge === 1 && stat('udp')?.malformedFraming === 1 ? true : undefined));
      expect(lines.some((l) => l.msg === 'dropped an audit datagram longer than auditing.maxMessageBytes' && l.maxMessageBytes === 1024)).toBe(true);
    });
  });

  describe('TCP', () => {
    it('reassembles a message sent byte by byte', async () => {
      const { intake, ports } = await start({ enabled: ['tcp'] });
      const socket = await connect(ports.tcp);
      await byteByByte(socket, frameOctetCounted(auditSyslog(1)));
      await until('the message', () => (intake.got.length === 1 ? true : undefined));
      expect(intake.texts()).toEqual([auditSyslog(1)]);
      expect(intake.got[0]?.from).toMatchObject({ transport: 'tcp', address: '127.0.0.1', port: socket.localPort });
    });

    it('takes ten messages written at once, then more on the same connection', async () => {
      const { intake, ports } = await start({ enabled: ['tcp'] });
      const socket = await connect(ports.tcp);
      socket.write(Buffer.concat(Array.from({ length: 10 }, (_, i) => frameOctetCounted(auditSyslog(i)))));
      await until('ten messages', () => (intake.got.length === 10 ? true : undefined));
      socket.write(frameOctetCounted(auditSyslog(10)));
      await until('the eleventh', () => (intake.got.length === 11 ? true : undefined));
      expect(intake.texts()).toEqual(Array.from({ length: 11 }, (_, i) => auditSyslog(i)));
      expect(stat('tcp')?.received).toBe(11);
    });

    it('keeps both messages when one write holds the end of one frame and the start of the next', async () => {
      const { intake, ports } = await start({ enabled: ['tcp'] });
      const socket = await connect(ports.tcp);
      const a = frameOctetCounted(auditSyslog('a'));
      const b = frameOctetCounted(auditSyslog('b'));
      const write = (data: Buffer) => new Promise<void>((resolve) => socket.write(data, () => resolve()));
      await write(a.subarray(0, a.length - 10));
      await until('the first part read', () => (stat('tcp')?.connections === 1 ? true : undefined));
      await write(Buffer.concat([a.subarray(a.length - 10), b.subarray(0, 15)]));
      await write(b.subarray(15));
      await until('both messages', () => (intake.got.length === 2 ? true : undefined));
      expect(intake.texts()).toEqual([auditSyslog('a'), auditSyslog('b')]);
    });

    it('counts octets in bytes: a message with multi-byte UTF-8 arrives whole', async () => {
      const { intake, ports } = await start({ enabled: ['tcp'] });
      const socket = await connect(ports.tcp);
      const text = auditSyslog(1, '<ParticipantObjectIdentification ParticipantObjectID="Zoë Müller 山田 😀"/>');
      socket.write(Buffer.concat([frameOctetCounted(text), frameOctetCounted(auditSyslog(2))]));
      await until('both messages', () => (intake.got.length === 2 ? true : undefined));
      expect(intake.texts()).toEqual([text, auditSyslog(2)]);
    });

    it('takes newline-framed messages, and one the sender ends by closing', async () => {
      const { intake, ports } = await start({ enabled: ['tcp'] });
      const socket = await connect(ports.tcp);
      socket.end(`${auditSyslog(1)}\n${auditSyslog(2)}`);
      await until('both messages', () => (intake.got.length === 2 ? true : undefined));
      expect(intake.texts()).toEqual([auditSyslog(1), auditSyslog(2)]);
      await closedOf(socket);
    });

    it('closes a connection whose frame is over the limit, counting and logging it, and keeps listening', async () => {
      const { intake, ports, lines } = await start({ enabled: ['tcp'], limits: { maxMessageBytes: 2048 } });
      const socket = await connect(ports.tcp);
      const localPort = socket.localPort;
      socket.write(Buffer.concat([frameOctetCounted(auditSyslog(1)), Buffer.from('999999 <85>1 ...')]));
      await closedOf(socket);
      expect(intake.texts()).toEqual([auditSyslog(1)]);
      expect(stat('tcp')).toMatchObject({ received: 1, tooLarge: 1, malformedFraming: 0 });
      expect(lines.find((l) => l.kind === 'too-large')).toMatchObject({ problem: 'a frame announces more than the 2048 bytes allowed', peer: `127.0.0.1:${localPort}` });
      const next = await connect(ports.tcp);
      next.write(frameOctetCounted(auditSyslog(2)));
      await until('the next sender served', () => (intake.got.length === 2 ? true : undefined));
    });

    it('closes a connection that sends something neither framing reads', async () => {
      const { intake, ports, lines } = await start({ enabled: ['tcp'] });
      const socket = await connect(ports.tcp);
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await closedOf(socket);
      expect(intake.got).toEqual([]);
      expect(stat('tcp')).toMatchObject({ malformedFraming: 1, tooLarge: 0 });
      expect(lines.some((l) => l.kind === 'malformed' && /found 'G'/.test(String(l.problem)))).toBe(true);
    });

    it('refuses connections over auditing.maxConnections, counts and logs them', async () => {
      const { intake, ports, lines } = await start({ enabled: ['tcp'], limits: { maxConnections: 2 } });
      const first = await connect(ports.tcp);
      const second = await connect(ports.tcp);
      await until('two connections held', () => (stat('tcp')?.connections === 2 ? true : undefined));
      const third = await connect(ports.tcp);
      await closedOf(third);
      expect(stat('tcp')?.refusedConnections).toBe(1);
      expect(lines.some((l) => l.msg === 'refused an audit connection: the listener has as many connections as auditing.maxConnections allows' && l.maxConnections === 2)).toBe(true);
      first.write(frameOctetCounted(auditSyslog(1)));
      second.write(frameOctetCounted(auditSyslog(2)));
      await until('the held connections still served', () => (intake.got.length === 2 ? true : undefined));
    });

    it('closes a connection idle past the timeout, and one that never finishes its frame', async () => {
      const { ports, lines } = await start({ enabled: ['tcp'], limits: { idleTimeoutMs: 150 } });
      const idle = await connect(ports.tcp);
      const stalled = await connect(ports.tcp);
      stalled.write(frameOctetCounted(auditSyslog(1)).subarray(0, 40));
      await Promise.all([closedOf(idle), closedOf(stalled)]);
      expect(lines.some((l) => l.msg === 'closing an idle audit connection')).toBe(true);
      expect(lines.find((l) => l.msg === 'closing an audit connection that stopped in the middle of a message')).toMatchObject({ heldBytes: 40 - `${Buffer.byteLength(auditSyslog(1))} `.length });
    });

    it('stops reading while the intake is overloaded, so the sender is held back, and reads on when it recovers', async () => {
      const intake = new RecordingIntake();
      intake.countOnly = true;
      intake.overloadAfter = 1;
      const { ports } = await start({ enabled: ['tcp'], intake });
      const socket = await connect(ports.tcp);
      const total = 10_000;
      const frame = (i: number) => frameOctetCounted(auditSyslog(i, `<!-- ${'p'.repeat(900)} -->`));
      socket.write(Buffer.concat(Array.from({ length: total }, (_, i) => frame(i))));
      await until('the listener to ask the intake to wait', () => (intake.waitsAt.length > 0 ? true : undefined));
      // Held back: the sender's own buffer stops shrinking because nothing more is read.
      let last = -1;
      await until('the sender to be held back', () => {
        const pending = socket.writableLength;
        const stalled = pending > 0 && pending === last;
        last = pending;
        return stalled ? true : undefined;
      });
      expect(intake.count).toBe(intake.waitsAt[0]);
      expect(intake.count).toBeLessThan(total);
      intake.release();
      await until('every message once the intake recovered', () => (intake.count === total ? true : undefined));
    });

    it('on stop hands over every whole message received, drops a part-read one and ends the connections', async () => {
      const { intake, ports, listeners, lines } = await start({ enabled: ['tcp'] });
      const socket = await connect(ports.tcp);
      socket.write(Buffer.concat([frameOctetCounted(auditSyslog(1)), frameOctetCounted(auditSyslog(2)), frameOctetCounted(auditSyslog(3)).subarray(0, 30)]));
      await until('the whole ones', () => (intake.got.length === 2 && listeners.stats()[0]?.connections === 1 ? true : undefined));
      await listeners.stop();
      await closedOf(socket);
      expect(intake.texts()).toEqual([auditSyslog(1), auditSyslog(2)]);
      expect(lines.some((l) => l.msg === 'the audit listener stopped in the middle of a message; the part read is dropped')).toBe(true);
      expect(listeners.bound()).toEqual([]);
      await expect(tcpPeer(ports.tcp)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    });
  });

  describe('TLS', () => {
    it('takes a message from a sender whose client certificate chains to a trusted CA, with its CN', async () => {
      const { intake, ports } = await start({ enabled: ['tls'], trustedCAs: [trusted.ca] });
      const peer = tlsPeer(ports.tls, { cert: trusted.cert, key: trusted.key });
      expect(await peer.connected).toBe(true);
      peer.socket.end(Buffer.concat([frameOctetCounted(auditSyslog(1)), frameOctetCounted(auditSyslog(2))]));
      await until('both messages', () => (intake.got.length === 2 ? true : undefined));
      expect(intake.got[0]?.from).toMatchObject({ transport: 'tls', address: '127.0.0.1', certificateSubject: 'ehr.clinic.example' });
      expect(await peer.closed).toBe('closed');
    });

    it('refuses a sender without a client certificate, logging its address and the reason', async () => {
      const { intake, ports, lines } = await start({ enabled: ['tls'], trustedCAs: [trusted.ca] });
      const peer = tlsPeer(ports.tls);
      let localPort: number | undefined;
      peer.socket.on('connect', () => (localPort = peer.socket.localPort));
      peer.socket.on('secureConnect', () => peer.socket.write(frameOctetCounted(auditSyslog(1))));
      await peer.closed;
      await until('the refusal logged', () => lines.find((l) => l.reason === 'no client certificate'));
      const line = lines.find((l) => l.reason === 'no client certificate');
      expect(line).toMatchObject({ transport: 'tls', peer: `127.0.0.1:${String(localPort)}` });
      expect(intake.got).toEqual([]);
      expect(stat('tls')?.refusedConnections).toBe(1);
    });

    it('refuses a sender whose certificate does not chain to the trusted CAs', async () => {
      const { intake, ports, lines } = await start({ enabled: ['tls'], trustedCAs: [trusted.ca] });
      const peer = tlsPeer(ports.tls, { cert: stranger.cert, key: stranger.key });
      peer.socket.on('secureConnect', () => peer.socket.write(frameOctetCounted(auditSyslog(1))));
      await peer.closed;
      const line = await until('the refusal logged', () => lines.find((l) => typeof l.reason === 'string' && l.reason.startsWith('the client certificate does not chain')));
      expect(line).toMatchObject({ subject: 'stranger.example', peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown });
      expect(intake.got).toEqual([]);
      expect(stat('tls')?.refusedConnections).toBe(1);
    });

    it('with requireClientCertificate off, serves senders without one, and passes a CN only when it chains', async () => {
      const { intake, ports } = await start({ enabled: ['tls'], trustedCAs: [trusted.ca], requireClientCertificate: false });
      for (const [n, client] of [[1, {}], [2, { cert: stranger.cert, key: stranger.key }], [3, { cert: trusted.cert, key: trusted.key }]] as const) {
        const peer = tlsPeer(ports.tls, client);
        expect(await peer.connected).toBe(true);
        peer.socket.end(frameOctetCounted(auditSyslog(n)));
        await peer.closed;
      }
      await until('three messages', () => (intake.got.length === 3 ? true : undefined));
      expect(intake.got.map((m) => m.from.certificateSubject)).toEqual([undefined, undefined, 'ehr.clinic.example']);
    });

    it('ends a handshake that never comes, by the handshake timeout, and counts it', async () => {
      const { ports, lines } = await start({ enabled: ['tls'], limits: { handshakeTimeoutMs: 100 } });
      const socket = await connect(ports.tls);
      await closedOf(socket);
      await until('the failed handshake counted', () => (stat('tls')?.refusedConnections === 1 ? true : undefined));
      expect(lines.some((l) => l.msg === 'an audit sender failed the TLS handshake')).toBe(true);
    });
  });

  it('fails to start naming the setting when a port is in use, and lets go of the ports it had bound', async () => {
    const [udp, tcp, tls] = (await freePorts(3)) as [number, number, number];
    const holder = createServer();
    servers.push(holder);
    await new Promise<void>((resolve) => holder.listen(tls, '127.0.0.1', resolve));
    const log = memoryLogger();
    const listeners = new AuditListeners({
      handler: new RecordingIntake(),
      host: '127.0.0.1',
      servers: { udp: { enabled: true, port: udp }, tcp: { enabled: true, port: tcp }, tls: { enabled: true, port: tls, requireClientCertificate: true } },
      certificate,
      trustedCAs: [],
      limits: { maxMessageBytes: 1024, maxConnections: 5, idleTimeoutMs: 1000 },
      logger: log.logger,
    });
    await expect(listeners.start()).rejects.toThrow(`the TLS audit listener cannot listen on 127.0.0.1:${tls} (auditing.servers.tls.port): the port is already in use by another program`);
    // The TCP port bound before the failure is free again.
    const probe = createServer();
    servers.push(probe);
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(tcp, '127.0.0.1', resolve);
    });
  });
});
