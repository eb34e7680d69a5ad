/**
 * Alerts and messages: an admin sends a test email through a real SMTP server started by the test, sees that it went
 * (and the server got it), tries an SMS with no gateway set and is told why it failed, then finds both in the list
 * and filters it by status and kind.
 */
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Notification } from '../../service/contracts/notifications.js';
import { test as base, expect, expectNoHorizontalScroll, shot } from './fixtures.js';

interface Mailbox {
  port: number;
  received: { to: string[]; subject: string; text: string }[];
}

/** A plain SMTP server on 127.0.0.1 (no STARTTLS, no login) that keeps every message it is given. */
async function startSmtp(): Promise<{ mailbox: Mailbox; close: () => Promise<void> }> {
  const mailbox: Mailbox = { port: 0, received: [] };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          mailbox.received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject: mail.subject ?? '', text: mail.text ?? '' });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mailbox.port = (server.server.address() as { port: number }).port;
  return { mailbox, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const test = base.extend<{ smtp: Mailbox }>({
  // Playwright reads a fixture's dependencies from its first parameter's pattern: this one has none.
  // eslint-disable-next-line no-empty-pattern
  smtp: async ({}, use) => {
    const { mailbox, close } = await startSmtp();
    try {
      await use(mailbox);
    } finally {
      await close();
    }
  },
  // Junction starts after the SMTP server, pointed at it; no SMS gateway is set.
  env: async ({ smtp }, use) => {
    await use({
      JUNCTION_EMAIL_FROM_ADDRESS: 'Junction <junction@clinic.example>',
      JUNCTION_EMAIL_SMTP_HOST: '127.0.0.1',
      JUNCTION_EMAIL_SMTP_PORT: String(smtp.port),
      JUNCTION_EMAIL_SMTP_REQUIRE_TLS: 'false',
    });
  },
});

test('an admin sends test messages and finds them, sent and failed, in the list', async ({ console: page, junction, smtp }, testInfo) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts and messages' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Alerts and messages' })).toBeVisible();
  // No alerts.consoleURL here: the page says the links in emails use a guessed address, and which.
  await expect(page.getByTestId('message-links')).toContainText('Links in emails use a guessed address');
  await expect(page.getByTestId('message-links')).toContainText('alerts.consoleURL');
  const table = page.getByRole('table', { name: 'Messages' });
  await expect(table).toContainText('No messages yet.');

  const form = page.getByRole('form', { name: 'Send test message' });
  await form.getByLabel(/^Email address/).fill('ops');
  await form.getByRole('button', { name: 'Send test' }).click();
  await expect(form.getByText('Enter a whole email address')).toBeVisible();

  await form.getByLabel(/^Email address/).fill('ops@clinic.example');
  await form.getByRole('button', { name: 'Send test' }).click();
  const outcome = form.getByRole('status');
  await expect(outcome).toContainText('Test message sent');
  await expect(outcome).toContainText('ops@clinic.example was accepted by the mail server');
  await expect.poll(() => smtp.received.length).toBe(1);
  expect(smtp.received[0]!.to).toEqual(['ops@clinic.example']);
  expect(smtp.received[0]!.subject).toMatch(/test message/i);
  expect(smtp.received[0]!.text).toContain('root@junction.local');

  const emailRow = table.getByRole('row').filter({ hasText: 'ops@clinic.example' });
  await expect(emailRow).toContainText('Test');
  await expect(emailRow).toContainText('Email');
  await expect(emailRow.getByText('Sent', { exact: true })).toBeVisible();

  // No SMS gateway is set: the test SMS fails and the form says why.
  await form.getByLabel('Send by').selectOption('sms');
  await form.getByLabel(/^Mobile number/).fill('+27821234567');
  await form.getByRole('button', { name: 'Send test' }).click();
  await expect(outcome).toContainText('Test message not sent');
  await expect(outcome).toContainText('Reason:');
  const smsRow = table.getByRole('row').filter({ hasText: '+27821234567' });
  await expect(smsRow.getByText('Failed', { exact: true })).toBeVisible();
  await expect(smsRow).toContainText('SMS');
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'notifications');

  const listed = await junction.api('GET', '/notifications?kind=test');
  expect(listed.status, listed.text).toBe(200);
  const records = listed.json as Notification[];
  expect(records.map((n) => [n.method, n.to, n.status])).toEqual([
    ['sms', '+27821234567', 'failed'],
    ['email', 'ops@clinic.example', 'sent'],
  ]);
  // Newest first, as the API lists them.
  await expect(table.getByRole('row').nth(1)).toContainText('+27821234567');
  await expect(table.getByRole('row').nth(2)).toContainText('ops@clinic.example');

  // Filters: by status, then by a kind with no messages.
  await page.getByLabel('Status', { exact: true }).selectOption('failed');
  await expect(smsRow).toBeVisible();
  await expect(emailRow).toHaveCount(0);
  await page.getByLabel('Status', { exact: true }).selectOption('');
  await page.getByLabel('Kind', { exact: true }).selectOption('alert');
  await expect(table).toContainText('No message matches the filters.');
  await page.getByLabel('Kind', { exact: true }).selectOption('test');
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(page.getByRole('button', { name: 'Older' })).toBeDisabled();
});
