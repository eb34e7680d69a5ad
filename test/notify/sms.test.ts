/**
 * SMS through a real HTTP gateway (a node:http server on 127.0.0.1): the POST's JSON and form bodies decoded back
 * exactly, the Authorization header, a refusal retried until accepted, maxAttempts, and retention of old records.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { SmsTransport } from '../../service/notify/sms.js';
import type { SmsSettings } from '../../service/notify/sms.js';
import { EmailTransport } from '../../service/notify/email.js';
import { Delivery } from '../../service/notify/delivery.js';
import { Outbox } from '../../service/notify/outbox.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { Store } from '../../service/storage/store.js';

const silent = pino({ level: 'silent' });
const TRICKY = 'Alert & status=500 + 3 failed 🚨 — naïve café, 東京 100%';

interface Posted {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A gateway answering each POST with the next of `answers` (the last one repeats). */
async function startGateway(answers: { status: number; body?: string }[]): Promise<{ url: string; posted: Posted[]; server: Server }> {
  const posted: Posted[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(posted.length - 1, answers.length - 1)] ?? { status: 200 };
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`, posted, server };
}

const servers: Server[] = [];
const transports: SmsTransport[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

function sms(settings: Partial<SmsSettings>): SmsTransport {
  const t = new SmsTransport({ gatewayUrl: '', format: 'json', toField: 'to', textField: 'text', from: '', timeoutSeconds: 5, ...settings });
  transports.push(t);
  return t;
}

describe('SmsTransport', () => {
  it('posts JSON with the configured field names, sender and Authorization header', async () => {
    const gateway = await startGateway([{ status: 202 }]);
    servers.push(gateway.server);
    await sms({ gatewayUrl: gateway.url, toField: 'msisdn', textField: 'message', from: 'Junction', authorization: 'Bearer k3y' }).send({ to: '+27821234567', subject: 'ignored', sms: TRICKY });
    expect(gateway.posted).toHaveLength(1);
    const [post] = gateway.posted;
    expect(post?.method).toBe('POST');
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.headers.authorization).toBe('Bearer k3y');
    expect(JSON.parse(post?.body ?? '')).toEqual({ msisdn: '+27821234567', message: TRICKY, from: 'Junction' });
  });

  it('posts a form whose values decode back exactly (&, +, =, emoji, non-ASCII)', async () => {
    const gateway = await startGateway([{ status: 200 }]);
    servers.push(gateway.server);
    await sms({ gatewayUrl: gateway.url, format: 'form' }).send({ to: '+27821234567', subject: 'ignored', sms: TRICKY });
    const [post] = gateway.posted;
    expect(post?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(post?.headers.authorization).toBeUndefined();
    const form = new URLSearchParams(post?.body ?? '');
    expect([...form.keys()]).toEqual(['to', 'text']);
    expect(form.get('to')).toBe('+27821234567');
    expect(form.get('text')).toBe(TRICKY);
  });

  it('fails a try with the status and the first 200 characters of a refusing answer', async () => {
    const gateway = await startGateway([{ status: 503, body: `busy ${'x'.repeat(1000)}` }]);
    servers.push(gateway.server);
    const error = await sms({ gatewayUrl: gateway.url }).send({ to: '+27821234567', subject: 's', sms: 'hi' }).catch((err: unknown) => err as Error & { permanent: boolean });
    expect(error).toMatchObject({ permanent: false });
    expect(error?.message).toBe(`the SMS gateway answered 503: busy ${'x'.repeat(195)}`);
  });

  it('fails a try when the gateway cannot be reached', async () => {
    const gateway = await startGateway([{ status: 200 }]);
    await new Promise((resolve) => gateway.server.close(resolve));
    await expect(sms({ gatewayUrl: gateway.url }).send({ to: '+27821234567', subject: 's', sms: 'hi' })).rejects.toThrow(/could not be reached.*ECONNREFUSED/);
  });

  it('says SMS is not set up without a gateway URL, or with one that is not http(s)', async () => {
    await expect(sms({}).send({ to: '+27821234567', subject: 's', sms: 'hi' })).rejects.toMatchObject({ message: 'SMS is not set up (sms.gatewayUrl is empty)', permanent: true });
    await expect(sms({ gatewayUrl: 'ftp://gateway.example/' }).send({ to: '+27821234567', subject: 's', sms: 'hi' })).rejects.toMatchObject({ permanent: true });
  });
});

describe('delivery by SMS', () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'junction-sms-'));
    store = createNedbStore({ dataDir: dir, logger: silent });
    await store.open();
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await store.notifications.removeMany({});
  });

  function setup(gatewayUrl: string, clock: { now: Date }, options: { maxAttempts?: number; keepDays?: number } = {}) {
    const delivery = new Delivery({
      notifications: store.notifications,
      transports: { sms: sms({ gatewayUrl }), email: new EmailTransport({ fromAddress: '', smtp: { host: '', port: 25, secure: false, requireTLS: true, rejectUnauthorized: true, user: '', timeoutSeconds: 5 } }) },
      maxAttempts: options.maxAttempts ?? 10,
      keepDays: options.keepDays ?? 30,
      now: () => clock.now,
      logger: silent,
    });
    return { delivery, outbox: new Outbox({ notifications: store.notifications, now: () => clock.now }) };
  }

  it('retries a refused message after the backoff and records it sent', async () => {
    const gateway = await startGateway([{ status: 500, body: 'internal error' }, { status: 200 }]);
    servers.push(gateway.server);
    const clock = { now: new Date('2026-03-01T10:00:00Z') };
    const { delivery, outbox } = setup(gateway.url, clock);
    const [queued] = await outbox.enqueue([{ kind: 'alert', method: 'sms', to: '+27821234567', subject: 'Alert', sms: 'channel down' }]);
    await delivery.run();
    expect(await store.notifications.findById(queued?._id ?? '')).toMatchObject({ status: 'pending', attempts: 1, lastError: 'the SMS gateway answered 500: internal error' });
    clock.now = new Date('2026-03-01T10:00:30Z');
    await delivery.run();
    const record = await store.notifications.findById(queued?._id ?? '');
    expect(record).toMatchObject({ status: 'sent', attempts: 2, sentAt: clock.now });
    expect(record).not.toHaveProperty('sms');
    expect(gateway.posted.map((p) => (JSON.parse(p.body) as { text: string }).text)).toEqual(['channel down', 'channel down']);
  });

  it('fails a message for good after maxAttempts tries, dropping its bodies and keeping the last error', async () => {
    const gateway = await startGateway([{ status: 500, body: 'still broken' }]);
    servers.push(gateway.server);
    const clock = { now: new Date('2026-03-01T10:00:00Z') };
    const { delivery, outbox } = setup(gateway.url, clock, { maxAttempts: 3 });
    const [queued] = await outbox.enqueue([{ kind: 'alert', method: 'sms', to: '+27821234567', subject: 'Alert', sms: 'channel down' }]);
    const id = queued?._id ?? '';
    for (let i = 0; i < 5; i++) {
      await delivery.run();
      // Far enough on for any planned retry to be due.
      clock.now = new Date(clock.now.getTime() + 60 * 60_000);
    }
    const record = await store.notifications.findById(id);
    expect(record).toMatchObject({ status: 'failed', attempts: 3, lastError: 'the SMS gateway answered 500: still broken' });
    expect(record).not.toHaveProperty('sms');
    expect(record).not.toHaveProperty('nextAttemptAt');
    expect(gateway.posted).toHaveLength(3);
  });

  it('sends every due message once, even when runs are asked for twice at once', async () => {
    const gateway = await startGateway([{ status: 200 }]);
    servers.push(gateway.server);
    const clock = { now: new Date('2026-03-01T10:00:00Z') };
    const { delivery, outbox } = setup(gateway.url, clock);
    await outbox.enqueue(Array.from({ length: 9 }, (_, i) => ({ kind: 'test' as const, method: 'sms' as const, to: `+2782123456${i}`, subject: 'x', sms: `n${i}` })));
    await Promise.all([delivery.run(), delivery.run()]);
    expect(gateway.posted.map((p) => (JSON.parse(p.body) as { text: string }).text).sort()).toEqual(Array.from({ length: 9 }, (_, i) => `n${i}`));
    expect(await store.notifications.count({ status: 'sent' })).toBe(9);
  });

  it('removes records older than keepDays, but never one still pending', async () => {
    const clock = { now: new Date('2026-01-01T10:00:00Z') };
    const { delivery, outbox } = setup('', clock, { keepDays: 30 });
    await outbox.enqueue([{ kind: 'test', method: 'sms', to: '+27821234567', subject: 'old', outcome: { status: 'failed', error: 'no' } }]);
    await outbox.enqueue([{ kind: 'alert', method: 'sms', to: '+27821234567', subject: 'old held', outcome: { status: 'held', error: 'maxAlerts' } }]);
    // A pending record that is not due (its retry is planned later) must survive its age.
    const [pending] = await outbox.enqueue([{ kind: 'test', method: 'email', to: 'a@b.example', subject: 'old pending', text: 'x' }]);
    await store.notifications.updateById(pending?._id ?? '', { set: { nextAttemptAt: new Date('2026-03-01T00:00:00Z') } });
    clock.now = new Date('2026-01-20T10:00:00Z');
    await outbox.enqueue([{ kind: 'test', method: 'sms', to: '+27821234567', subject: 'recent', outcome: { status: 'failed', error: 'no' } }]);
    clock.now = new Date('2026-02-05T10:00:00Z');
    await delivery.run();
    expect((await store.notifications.find({}, { sort: { subject: 1 } })).map((r) => r.subject)).toEqual(['old pending', 'recent']);
  });
});
