/** End to end: a rule fires, the outbox records the alert, delivery sends it to a real SMTP server, and the email reads right. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Delivery } from '../../service/notify/delivery.js';
import { EmailTransport } from '../../service/notify/email.js';
import { SmsTransport } from '../../service/notify/sms.js';
import { startSmtpServer } from '../notify/smtp-server.js';
import type { TestSmtpServer } from '../notify/smtp-server.js';
import { AlertFixture, CONSOLE, ZONE, silent } from './fixture.js';

let f: AlertFixture;
let smtp: TestSmtpServer;
let delivery: Delivery;
beforeEach(async () => {
  f = new AlertFixture();
  await f.open();
  smtp = await startSmtpServer();
  delivery = new Delivery({
    notifications: f.store.notifications,
    transports: {
      email: new EmailTransport({ fromAddress: 'Junction <junction@clinic.example>', smtp: { host: '127.0.0.1', port: smtp.port, secure: false, requireTLS: false, rejectUnauthorized: true, user: '', timeoutSeconds: 5 } }),
      sms: new SmsTransport({ gatewayUrl: '', format: 'json', toField: 'to', textField: 'text', from: '', timeoutSeconds: 5 }),
    },
    maxAttempts: 3,
    keepDays: 30,
    now: () => f.now,
    logger: silent,
  });
});
afterEach(async () => {
  await delivery.stop();
  await smtp.close();
  await f.destroy();
});

it('sends the alert email through SMTP with the rule, channel, window, count and console links', async () => {
  await f.user('ada@clinic.example');
  const lab = await f.channel('Lab results', [{ status: '5xx', users: [{ user: 'ada@clinic.example', method: 'email', maxAlerts: 'no max' }] }]);
  const job = f.job();
  await job.run();
  f.tick(1000);
  const a = await f.finish(lab._id, 500);
  const b = await f.finish(lab._id, 503);
  await f.finish(lab._id, 200);
  f.tick(59_000);
  await job.run();
  await delivery.run();

  expect(smtp.received).toHaveLength(1);
  const mail = smtp.received[0];
  expect(mail?.rcptTo).toEqual(['ada@clinic.example']);
  expect(mail?.parsed.subject).toBe('Junction alert (Clinic A): status 5xx on Lab results');
  const text = mail?.parsed.text ?? '';
  expect(text).toContain('Channel: Lab results on Clinic A');
  expect(text).toContain(`From 2026-11-24 11:00 to 11:01 (${ZONE}): 2 transactions failed with response status 5xx.`);
  expect(text).toContain(`${CONSOLE}/#/transactions/${a}`);
  expect(text).toContain(`${CONSOLE}/#/transactions/${b}`);
  const html = typeof mail?.parsed.html === 'string' ? mail.parsed.html : '';
  expect(html).toContain('<h1>Junction alert: status 5xx</h1>');
  expect(html).toContain(`<a href="${CONSOLE}/#/transactions/${a}">${a}</a>`);
  expect(html).toContain(`From 2026-11-24 11:00 to 11:01 (${ZONE})`);

  const [record] = await f.alerts();
  expect(record?.status).toBe('sent');
  expect(record?.alert?.transactionIds).toEqual([a, b]);
  // Sent counts against nothing here (no max), and the same transactions are never sent again.
  f.tick(60_000);
  await job.run();
  await delivery.run();
  expect(smtp.received).toHaveLength(1);
});
