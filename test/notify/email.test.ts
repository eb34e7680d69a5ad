/**
 * Email through a real SMTP server (smtp-server on 127.0.0.1): what arrives, login, STARTTLS with certificate
 * checks, and delivery's retries while the server is down.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { EmailTransport } from '../../service/notify/email.js';
import type { EmailSettings } from '../../service/notify/email.js';
import { SmsTransport } from '../../service/notify/sms.js';
import { Delivery } from '../../service/notify/delivery.js';
import { Outbox } from '../../service/notify/outbox.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { Store } from '../../service/storage/store.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { freePort, startSmtpServer } from './smtp-server.js';
import type { TestSmtpServer } from './smtp-server.js';

const silent = pino({ level: 'silent' });

function settings(port: number, smtp: Partial<EmailSettings['smtp']> = {}): EmailSettings {
  return {
    fromAddress: 'Junction <junction@clinic.example>',
    smtp: { host: '127.0.0.1', port, secure: false, requireTLS: false, rejectUnauthorized: true, user: '', timeoutSeconds: 5, ...smtp },
  };
}

const servers: TestSmtpServer[] = [];
const transports: EmailTransport[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

function transport(s: EmailSettings, trustedCAs: string[] = []): EmailTransport {
  const t = new EmailTransport(s, trustedCAs);
  transports.push(t);
  return t;
}

describe('EmailTransport', () => {
  it('delivers from, to, subject, text and html, logging in with the configured user', async () => {
    const server = await startSmtpServer({ auth: { user: 'mailer', password: 's3cret' } });
    servers.push(server);
    await transport(settings(server.port, { user: 'mailer', password: 's3cret' })).send({
      to: 'ada@clinic.example',
      subject: 'Junction: test message ✓',
      text: 'Plain body, ünïcode',
      html: '<p>HTML <b>body</b></p>',
    });
    expect(server.received).toHaveLength(1);
    const [mail] = server.received;
    expect(mail?.user).toBe('mailer');
    expect(mail?.rcptTo).toEqual(['ada@clinic.example']);
    expect(mail?.parsed.from?.value).toEqual([{ address: 'junction@clinic.example', name: 'Junction' }]);
    expect(mail?.parsed.to).toMatchObject({ value: [{ address: 'ada@clinic.example' }] });
    expect(mail?.parsed.subject).toBe('Junction: test message ✓');
    expect(mail?.parsed.text?.trim()).toBe('Plain body, ünïcode');
    expect(mail?.parsed.html).toBe('<p>HTML <b>body</b></p>');
  });

  it('fails a try with the server’s answer when the password is wrong', async () => {
    const server = await startSmtpServer({ auth: { user: 'mailer', password: 's3cret' } });
    servers.push(server);
    const send = transport(settings(server.port, { user: 'mailer', password: 'wrong' })).send({ to: 'ada@clinic.example', subject: 's', text: 't' });
    await expect(send).rejects.toMatchObject({ name: 'DeliveryError', permanent: false, message: expect.stringContaining('(EAUTH, SMTP 535)') as unknown });
    expect(server.received).toHaveLength(0);
  });

  describe('with STARTTLS', () => {
    const pair = generateSelfSigned('localhost');

    it('upgrades and verifies the server against the trusted CAs', async () => {
      const server = await startSmtpServer({ tls: pair, auth: { user: 'mailer', password: 's3cret' } });
      servers.push(server);
      await transport(settings(server.port, { requireTLS: true, user: 'mailer', password: 's3cret' }), [pair.cert]).send({ to: 'ada@clinic.example', subject: 'over TLS', text: 'hello' });
      expect(server.received).toHaveLength(1);
      expect(server.received[0]?.secure).toBe(true);
      expect(server.received[0]?.parsed.subject).toBe('over TLS');
    });

    it('refuses a server whose certificate no trusted CA vouches for', async () => {
      const server = await startSmtpServer({ tls: pair });
      servers.push(server);
      const send = transport(settings(server.port, { requireTLS: true })).send({ to: 'ada@clinic.example', subject: 's', text: 't' });
      await expect(send).rejects.toThrow(/certificate/i);
      expect(server.received).toHaveLength(0);
    });

    it('refuses to send in the clear when requireTLS is on and the server offers no STARTTLS', async () => {
      const server = await startSmtpServer();
      servers.push(server);
      await expect(transport(settings(server.port, { requireTLS: true })).send({ to: 'ada@clinic.example', subject: 's', text: 't' })).rejects.toThrow(/STARTTLS|TLS/);
      expect(server.received).toHaveLength(0);
    });
  });

  it('says email is not set up when no host is configured, as a failure not worth retrying', async () => {
    await expect(transport(settings(25, { host: '' })).send({ to: 'ada@clinic.example', subject: 's', text: 't' })).rejects.toMatchObject({
      message: 'email is not set up (email.smtp.host is empty)',
      permanent: true,
    });
  });
});

describe('delivery by email', () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'junction-email-'));
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

  function deliveryAt(port: number, clock: { now: Date }, overrides: Partial<EmailSettings['smtp']> = {}) {
    const delivery = new Delivery({
      notifications: store.notifications,
      transports: { email: transport(settings(port, overrides)), sms: new SmsTransport({ gatewayUrl: '', format: 'json', toField: 'to', textField: 'text', from: '', timeoutSeconds: 5 }) },
      maxAttempts: 5,
      keepDays: 30,
      now: () => clock.now,
      logger: silent,
    });
    const outbox = new Outbox({ notifications: store.notifications, now: () => clock.now });
    return { delivery, outbox };
  }

  it('keeps a message pending with its tries and error while the server is down, and sends it once it listens', async () => {
    const port = await freePort();
    const clock = { now: new Date('2026-03-01T10:00:00Z') };
    const { delivery, outbox } = deliveryAt(port, clock);
    const [queued] = await outbox.enqueue([{ kind: 'test', method: 'email', to: 'ada@clinic.example', subject: 'Down then up', text: 'body text', html: '<p>body</p>' }]);
    const id = queued?._id ?? '';

    await delivery.run();
    let record = await store.notifications.findById(id);
    expect(record).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date('2026-03-01T10:00:30Z'), text: 'body text' });
    expect(record?.lastError).toMatch(/ECONNREFUSED|ECONNECTION/);

    // Not due yet: nothing is tried.
    clock.now = new Date('2026-03-01T10:00:29Z');
    await delivery.run();
    expect((await store.notifications.findById(id))?.attempts).toBe(1);

    clock.now = new Date('2026-03-01T10:00:30Z');
    await delivery.run();
    record = await store.notifications.findById(id);
    expect(record).toMatchObject({ status: 'pending', attempts: 2, nextAttemptAt: new Date('2026-03-01T10:01:30Z') });

    const server = await startSmtpServer({ port });
    servers.push(server);
    clock.now = new Date('2026-03-01T10:01:30Z');
    await delivery.run();
    record = await store.notifications.findById(id);
    expect(record).toMatchObject({ status: 'sent', attempts: 3, sentAt: clock.now });
    // Sent: bodies, the retry time and the old error are dropped; the subject stays.
    expect(record).not.toHaveProperty('text');
    expect(record).not.toHaveProperty('html');
    expect(record).not.toHaveProperty('nextAttemptAt');
    expect(record).not.toHaveProperty('lastError');
    expect(record?.subject).toBe('Down then up');
    expect(server.received.map((m) => m.parsed.subject)).toEqual(['Down then up']);
  });

  it('records a message as failed at once when email is not set up', async () => {
    const clock = { now: new Date('2026-03-01T10:00:00Z') };
    const { delivery, outbox } = deliveryAt(25, clock, { host: '' });
    const [queued] = await outbox.enqueue([{ kind: 'test', method: 'email', to: 'ada@clinic.example', subject: 'Nowhere', text: 'x' }]);
    await delivery.run();
    const record = await store.notifications.findById(queued?._id ?? '');
    expect(record).toMatchObject({ status: 'failed', attempts: 1, lastError: 'email is not set up (email.smtp.host is empty)' });
    expect(record).not.toHaveProperty('text');
  });
});
