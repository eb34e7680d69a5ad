/**
 * The audit forwarder over real sockets: repositories of the test's own collect what arrives (octet counts checked
 * as bytes, XML read with @xmldom/xmldom); the retry waits and timeouts run on timers the test fires.
 */
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditForwarder } from '../../service/audit/forwarder.js';
import type { AuditForwarderOptions } from '../../service/audit/forwarder.js';
import { applicationActivityEvent, userLoginEvent } from '../../service/audit/events.js';
import { SqliteAuditOutbox } from '../../service/storage/sqlite/audit-outbox.js';
import type { NewAudit } from '../../service/storage/audits.js';
import type { AuditOutbox } from '../../service/storage/audit-outbox.js';
import { tempDir } from '../helpers/junction.js';
import { memoryLogger } from '../helpers/logger.js';
import { freePort } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { ManualTimers, streamCollector, testAuthority, udpCollector } from './forwarder-peers.js';
import type { Collector } from './forwarder-peers.js';

const CONNECT_TIMEOUT = 7000;
const WRITE_TIMEOUT = 9000;
const STOP_TIMEOUT = 4000;
const NAME = 'Zoë 患者 <root> & "co"';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function login(username: string): NewAudit {
  return userLoginEvent({ username, address: '10.0.0.9', method: 'local', success: true, auditSourceID: 'Junction', at: new Date('2026-01-02T03:04:05Z') });
}

function userIDs(collector: Collector): string[] {
  return collector.messages.map((m) => {
    const xml = m.slice(m.indexOf('<?xml'));
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    return doc.getElementsByTagName('ActiveParticipant')[0]?.getAttribute('UserID') ?? '';
  });
}

async function forwarder(options: Partial<AuditForwarderOptions> & { port: number; file?: string }) {
  const timers = new ManualTimers();
  const log = memoryLogger();
  const file = options.file ?? join(await tempDir(), 'audit-outbox.sqlite');
  const sender = new AuditForwarder({
    transport: 'tcp',
    host: '127.0.0.1',
    outbox: new SqliteAuditOutbox({ file }),
    maxQueued: 1000,
    retryMaxSeconds: 300,
    logger: log.logger,
    timers,
    connectTimeoutMs: CONNECT_TIMEOUT,
    writeTimeoutMs: WRITE_TIMEOUT,
    stopTimeoutMs: STOP_TIMEOUT,
    // Apart from the 1 s first retry, so a test waiting for one never fires the other.
    tlsSettleMs: 1500,
    hostname: 'test-host',
    ...options,
  });
  await sender.start();
  cleanup.push(() => sender.stop());
  return { sender, timers, lines: log.lines, file };
}

async function collector(options: Parameters<typeof streamCollector>[0] = {}): Promise<Collector> {
  const c = await streamCollector(options);
  cleanup.push(() => c.close());
  return c;
}

const delivered = (c: Collector, n: number) => until(`${n} messages`, () => (c.messages.length >= n ? true : undefined), 10_000);
const armed = (timers: ManualTimers, ms: number) => until(`a ${ms} ms timer`, () => (timers.armed().includes(ms) ? true : undefined), 10_000);
const messagesOf = (lines: Record<string, unknown>[], text: RegExp) => lines.filter((l) => typeof l.msg === 'string' && text.test(l.msg));

describe('audit forwarder over TCP', () => {
  it('sends queued events in order on one connection, octet-counted by bytes', async () => {
    const repo = await collector();
    const { sender } = await forwarder({ port: repo.port });
    await sender.add(login(NAME));
    await sender.add(login('second'));
    await sender.add(applicationActivityEvent('stop', 'Junction'));
    await delivered(repo, 3);
    expect(repo.framingErrors).toEqual([]);
    expect(userIDs(repo)).toEqual([NAME, 'second', 'Junction']);
    expect(repo.messages[0]).toMatch(/^<85>1 \S+ test-host junction \d+ IHE\+RFC-3881 - <\?xml/);
    expect(repo.connections()).toBe(1);
    expect(sender.status()).toMatchObject({ interface: 'tcp', queued: 0, sent: 3, dropped: 0, retrying: false });
  });

  it('reconnects when the repository drops the connection', async () => {
    const repo = await collector();
    const { sender, timers } = await forwarder({ port: repo.port });
    await sender.add(login('before'));
    await delivered(repo, 1);
    expect(sender.status().connected).toBe(true);
    await repo.close();
    // Syslog has no acknowledgements: an event written in the instant the repository closes is lost in its
    // buffers. Once the close has been seen, the next event goes on a new connection.
    await until('the close seen', () => (sender.status().connected ? undefined : true));
    const again = await collector({ port: repo.port });
    await sender.add(login('after'));
    await delivered(again, 1);
    expect(timers.armed()).not.toContain(1000);
    expect(userIDs(again)).toEqual(['after']);
    expect(again.connections()).toBe(1);
  });

  it('keeps events queued while the repository is down, backs off doubling to the cap, then delivers in order', async () => {
    const port = await freePort();
    const { sender, timers, lines } = await forwarder({ port, retryMaxSeconds: 3 });
    for (const name of ['a', 'b', 'c']) await sender.add(login(name));
    await armed(timers, 1000);
    expect(sender.status()).toMatchObject({ queued: 3, sent: 0, retrying: true });
    timers.fire(1000);
    await armed(timers, 2000);
    timers.fire(2000);
    await armed(timers, 3000);
    timers.fire(3000);
    await armed(timers, 3000);
    expect(messagesOf(lines, /cannot send audit events/)).toHaveLength(1);
    const repo = await collector({ port });
    timers.fire(3000);
    await delivered(repo, 3);
    expect(userIDs(repo)).toEqual(['a', 'b', 'c']);
    expect(sender.status()).toMatchObject({ queued: 0, sent: 3, retrying: false });
    expect(messagesOf(lines, /reachable again/)).toHaveLength(1);
  });

  it('drops the oldest past maxQueued, warns once per burst and counts the drops', async () => {
    const port = await freePort();
    const { sender, timers, lines } = await forwarder({ port, maxQueued: 2 });
    for (const name of ['1', '2', '3', '4', '5']) await sender.add(login(name));
    expect(sender.status()).toMatchObject({ queued: 2, dropped: 3 });
    expect(messagesOf(lines, /queue is full/)).toHaveLength(1);
    const repo = await collector({ port });
    await armed(timers, 1000);
    timers.fire(1000);
    await delivered(repo, 2);
    expect(userIDs(repo)).toEqual(['4', '5']);
    const summary = messagesOf(lines, /dropped 3 audit events/);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ dropped: 3, level: 40 });
  });

  it('delivers after a restart what an earlier forwarder queued', async () => {
    const port = await freePort();
    const first = await forwarder({ port });
    await first.sender.add(login('queued-1'));
    await first.sender.add(login('queued-2'));
    await armed(first.timers, 1000);
    await first.sender.stop();
    expect(messagesOf(first.lines, /stay queued for the next start/)).toHaveLength(1);
    const repo = await collector({ port });
    const second = await forwarder({ port, file: first.file });
    await second.sender.add(login('new'));
    await delivered(repo, 3);
    expect(userIDs(repo)).toEqual(['queued-1', 'queued-2', 'new']);
  });

  it('waits and tries again when the outbox cannot be read or updated (a shared database out of reach)', async () => {
    const repo = await collector();
    const outbox = new SqliteAuditOutbox({ file: join(await tempDir(), 'audit-outbox.sqlite') });
    const failures = { peek: 1, removeThrough: 1 };
    const flaky: AuditOutbox = {
      open: () => outbox.open(),
      push: (message, maxQueued) => outbox.push(message, maxQueued),
      peek: (limit) => (failures.peek-- > 0 ? Promise.reject(new Error('connection lost')) : outbox.peek(limit)),
      removeThrough: (seq) => (failures.removeThrough-- > 0 ? Promise.reject(new Error('connection lost')) : outbox.removeThrough(seq)),
      size: () => outbox.size(),
      close: () => outbox.close(),
    };
    const { sender, timers, lines } = await forwarder({ port: repo.port, outbox: flaky });
    // The first read, at start, fails: the sender waits as for a repository that is down, then reads again.
    await armed(timers, 1000);
    expect(messagesOf(lines, /cannot read the audit outbox/)).toHaveLength(1);
    timers.fire(1000);
    await until('the sender idle', () => (failures.peek < 0 ? true : undefined));
    await sender.add(login('first'));
    // Sent, but its removal failed: it is kept, and goes again after the wait (a repeat rather than a loss).
    await delivered(repo, 1);
    await armed(timers, 2000);
    expect(messagesOf(lines, /cannot update the audit outbox/)).toHaveLength(1);
    timers.fire(2000);
    await delivered(repo, 2);
    await until('the queue empty', () => (sender.status().queued === 0 ? true : undefined));
    expect(userIDs(repo)).toEqual(['first', 'first']);
  });

  it('cuts off a repository that stalls, and stops in bounded time leaving the event queued', async () => {
    const repo = await collector({ stalled: true });
    const { sender, timers, file } = await forwarder({ port: repo.port });
    // Far more than the loopback socket buffers hold, so the write cannot complete while nobody reads.
    const big = login('big');
    big.participantObjectIdentification[0]?.participantObjectDetail?.push({ type: 'padding', value: 'x'.repeat(24 * 1024 * 1024) });
    await sender.add(big);
    await armed(timers, WRITE_TIMEOUT);
    timers.fire(WRITE_TIMEOUT);
    await armed(timers, 1000);
    expect(sender.status()).toMatchObject({ queued: 1, sent: 0, retrying: true });
    // The retry reaches the stalled repository again; a stop in the middle of that write ends at its deadline.
    timers.fire(1000);
    await armed(timers, WRITE_TIMEOUT);
    const stopped = sender.stop();
    await armed(timers, STOP_TIMEOUT);
    timers.fire(STOP_TIMEOUT);
    await stopped;
    const outbox = new SqliteAuditOutbox({ file });
    await outbox.open();
    expect(outbox.size()).toBe(1);
    await outbox.close();
  });

  it('gives up on a connection that never completes (a TLS repository that never answers the handshake)', async () => {
    const repo = await collector({ stalled: true });
    const ca = testAuthority('CA');
    const { sender, timers } = await forwarder({ port: repo.port, transport: 'tls', tls: { trustedCAs: [ca.pem], ...ca.issue('junction', 'client') } });
    await sender.add(login('x'));
    await armed(timers, CONNECT_TIMEOUT);
    timers.fire(CONNECT_TIMEOUT);
    await armed(timers, 1000);
    expect(sender.status()).toMatchObject({ queued: 1, retrying: true });
  });
});

describe('audit forwarder over UDP', () => {
  it('sends one datagram per event, and drops (counted) one too large for a datagram', async () => {
    const repo = await udpCollector();
    cleanup.push(() => repo.close());
    const { sender, lines } = await forwarder({ port: repo.port, transport: 'udp' });
    await sender.add(login(NAME));
    const big = login('big');
    big.participantObjectIdentification[0]?.participantObjectDetail?.push({ type: 'padding', value: 'x'.repeat(70_000) });
    await sender.add(big);
    await sender.add(login('after'));
    await delivered(repo, 2);
    expect(userIDs(repo)).toEqual([NAME, 'after']);
    expect(repo.messages[0]).toMatch(/^<85>1 /);
    expect(sender.status()).toMatchObject({ interface: 'udp', tooLarge: 1, sent: 2, queued: 0 });
    expect(messagesOf(lines, /too large for a UDP datagram/)).toHaveLength(1);
  });
});

describe('audit forwarder over TLS', () => {
  const serverCA = testAuthority('Repository CA');
  const clientCA = testAuthority('Junction CA');
  const client = clientCA.issue('junction-client', 'client');

  it('verifies the repository and presents its own certificate, which the repository checks', async () => {
    const repo = await collector({ tls: { ...serverCA.issue('repo', 'server', { dns: ['localhost'], ips: ['127.0.0.1'] }), ca: clientCA.pem } });
    const { sender } = await forwarder({ port: repo.port, transport: 'tls', tls: { trustedCAs: [serverCA.pem], ...client } });
    await sender.add(login(NAME));
    await sender.add(login('two'));
    await delivered(repo, 2);
    expect(userIDs(repo)).toEqual([NAME, 'two']);
    expect(repo.clientNames).toEqual(['junction-client']);
  });

  it('checks the host name it was given', async () => {
    const repo = await collector({ tls: { ...serverCA.issue('repo', 'server', { dns: ['localhost'] }), ca: clientCA.pem } });
    const { sender } = await forwarder({ port: repo.port, host: 'localhost', transport: 'tls', tls: { trustedCAs: [serverCA.pem], ...client } });
    await sender.add(login('by-name'));
    await delivered(repo, 1);
  });

  it('refuses a repository whose certificate does not chain to a trusted CA', async () => {
    const stranger = testAuthority('Someone else');
    const repo = await collector({ tls: { ...stranger.issue('repo', 'server', { ips: ['127.0.0.1'] }), ca: clientCA.pem } });
    const { sender, timers, lines } = await forwarder({ port: repo.port, transport: 'tls', tls: { trustedCAs: [serverCA.pem], ...client } });
    await sender.add(login('secret'));
    await armed(timers, 1000);
    expect(repo.messages).toEqual([]);
    expect(sender.status()).toMatchObject({ queued: 1, retrying: true });
    const warning = messagesOf(lines, /cannot send audit events/)[0] as { err?: { code?: string } } | undefined;
    expect(warning?.err?.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER_CERT/);
  });

  it('refuses a repository whose certificate names another host', async () => {
    const repo = await collector({ tls: { ...serverCA.issue('elsewhere', 'server', { dns: ['elsewhere.example'] }), ca: clientCA.pem } });
    const { sender, timers, lines } = await forwarder({ port: repo.port, transport: 'tls', tls: { trustedCAs: [serverCA.pem], ...client } });
    await sender.add(login('secret'));
    await armed(timers, 1000);
    expect(repo.messages).toEqual([]);
    const warning = messagesOf(lines, /cannot send audit events/)[0] as { err?: { code?: string } } | undefined;
    expect(warning?.err?.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('is refused by a repository that does not trust its client certificate', async () => {
    const repo = await collector({ tls: { ...serverCA.issue('repo', 'server', { ips: ['127.0.0.1'] }), ca: clientCA.pem } });
    const untrusted = testAuthority('Not the clinic').issue('intruder', 'client');
    const { sender, timers } = await forwarder({ port: repo.port, transport: 'tls', tls: { trustedCAs: [serverCA.pem], ...untrusted } });
    await sender.add(login('x'));
    // TLS 1.3: the refusal comes after the client's handshake, so the forwarder waits for it before writing.
    await armed(timers, 1000);
    expect(sender.status().retrying).toBe(true);
    expect(repo.messages).toEqual([]);
    expect(repo.clientNames).toEqual([]);
    expect(sender.status()).toMatchObject({ queued: 1, sent: 0 });
  });
});
