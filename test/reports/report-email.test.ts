/**
 * End to end: the reports job records a report, delivery sends it through a real SMTP server (smtp-server on
 * 127.0.0.1), and the message as received, parsed by mailparser, has the same numbers in its text and HTML parts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Delivery } from '../../service/notify/delivery.js';
import { EmailTransport } from '../../service/notify/email.js';
import { SmsTransport } from '../../service/notify/sms.js';
import { startSmtpServer } from '../notify/smtp-server.js';
import type { TestSmtpServer } from '../notify/smtp-server.js';
import { htmlRow, reportsFixture, silent, textRow } from './fixture.js';
import type { ReportsFixture } from './fixture.js';

let fixture: ReportsFixture | undefined;
let server: TestSmtpServer | undefined;
let delivery: Delivery | undefined;
afterEach(async () => {
  await delivery?.stop();
  await server?.close();
  await fixture?.close();
  fixture = undefined;
  server = undefined;
  delivery = undefined;
});

describe('a report by email', () => {
  it('arrives through a real SMTP server with the same numbers in both parts', async () => {
    const f = await reportsFixture('Africa/Nairobi');
    fixture = f;
    server = await startSmtpServer();
    delivery = new Delivery({
      notifications: f.store.notifications,
      transports: {
        email: new EmailTransport({ fromAddress: 'Junction <junction@clinic.example>', smtp: { host: '127.0.0.1', port: server.port, secure: false, requireTLS: false, rejectUnauthorized: true, user: '', timeoutSeconds: 5 } }),
        sms: new SmsTransport({ gatewayUrl: '', format: 'json', toField: 'to', textField: 'text', from: '', timeoutSeconds: 5 }),
      },
      maxAttempts: 3,
      keepDays: 30,
      now: () => f.clock.now,
      logger: silent,
    });
    const lab = await f.channel('Lab results');
    const ward = await f.channel('Ward <3>');
    await f.transaction(lab, '2026-11-23T05:00:00Z', 'Successful', 120);
    await f.transaction(lab, '2026-11-23T06:00:00Z', 'Failed', 80);
    await f.transaction(ward, '2026-11-23T07:00:00Z', 'Completed with error(s)', 400);
    await f.user('ada@clinic.example', { groups: ['admin'], dailyReport: true });

    await f.runAt('2026-11-24T03:00:00Z');
    await f.runAt('2026-11-24T04:00:00Z');
    await delivery.run();

    expect(server.received).toHaveLength(1);
    const [mail] = server.received;
    expect(mail?.rcptTo).toEqual(['ada@clinic.example']);
    expect(mail?.parsed.subject).toBe('Daily report for Clinic <North>');
    const text = mail?.parsed.text ?? '';
    const html = typeof mail?.parsed.html === 'string' ? mail.parsed.html : '';
    // total, successful, completed, completed with errors, failed, processing, average ms
    expect(textRow(text, 'Lab results')).toEqual(['2', '1', '0', '0', '1', '0', '100']);
    expect(textRow(text, 'Ward <3>')).toEqual(['1', '0', '0', '1', '0', '0', '400']);
    expect(textRow(text, 'All channels')).toEqual(['3', '1', '0', '1', '1', '0', '200']);
    expect(htmlRow(html, 'Lab results')).toEqual(['Lab results', '2', '1', '0', '0', '1', '0', '100']);
    expect(htmlRow(html, 'Ward &lt;3&gt;')).toEqual(['Ward &lt;3&gt;', '1', '0', '0', '1', '0', '0', '400']);
    expect(htmlRow(html, 'All channels')).toEqual(['All channels', '3', '1', '0', '1', '1', '0', '200']);
    expect(text).toContain('(Africa/Nairobi)');
    const [record] = await f.reports();
    expect(record?.status).toBe('sent');
  });
});
