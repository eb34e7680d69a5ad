/**
 * Issue 35, the settings helper's part, walked as a person would: the sign-in page opens without a failed-login
 * audit (a wrong password still writes one); an admin sets the mail server on the Settings page, is told a wrong
 * password by the server's own words, tests it right against a real SMTP server and saves it; and an email address
 * that belongs to no user, added to a contact group in the console, receives the group's alert.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { ROOT_EMAIL, test as base, expect, expectNoHorizontalScroll, shot, signIn } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

/** Login audit events (EventID 110114) as user and outcome. */
async function logins(junction: E2EJunction): Promise<{ user: string; outcome: string }[]> {
  const filters = JSON.stringify({ 'eventIdentification.eventID.code': '110114' });
  const answer = await junction.api('GET', `/audits?filterRepresentation=full&filters=${encodeURIComponent(filters)}`);
  expect(answer.status).toBe(200);
  return (answer.json as { activeParticipant: { userID: string }[]; eventIdentification: { eventOutcomeIndicator: string } }[]).map((a) => ({
    user: a.activeParticipant[0]?.userID ?? '',
    outcome: a.eventIdentification.eventOutcomeIndicator,
  }));
}

interface Mailbox {
  port: number;
  received: { to: string[]; subject: string; text: string; user: string | undefined }[];
}

const SMTP_USER = 'mailer';
const SMTP_PASSWORD = 'smtp-console-secret-7';

/** A plain SMTP server on 127.0.0.1 that wants a login (over plain text: a test) and keeps every message it is given. */
async function startSmtp(): Promise<{ mailbox: Mailbox; close: () => Promise<void> }> {
  const mailbox: Mailbox = { port: 0, received: [] };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(credentials, _session, callback) {
      if (credentials.username === SMTP_USER && credentials.password === SMTP_PASSWORD) callback(null, { user: SMTP_USER });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          mailbox.received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject: mail.subject ?? '', text: mail.text ?? '', user: session.user as string | undefined });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mailbox.port = (server.server.address() as AddressInfo).port;
  return { mailbox, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const test = base.extend<{ smtp: Mailbox }>({
  // eslint-disable-next-line no-empty-pattern
  smtp: async ({}, use) => {
    const { mailbox, close } = await startSmtp();
    try {
      await use(mailbox);
    } finally {
      await close();
    }
  },
});

test.describe('the sign-in page and the audit log', () => {
  test('opening the sign-in page writes no failed login; a wrong password does', async ({ page, junction }) => {
    await page.goto(`${junction.apiUrl}/`);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    // Everything the page asks for at load (the session probe, the sign-in types, the browser's own icon request).
    await page.waitForLoadState('networkidle');
    await page.reload();
    await page.waitForLoadState('networkidle');
    expect((await logins(junction)).filter((l) => l.outcome !== '0')).toEqual([]);

    await signIn(page, junction, 'not-the-password');
    await expect(page.getByRole('alert')).toContainText('email or password is not right');
    expect((await logins(junction)).filter((l) => l.outcome !== '0')).toEqual([{ user: ROOT_EMAIL, outcome: '4' }]);
  });
});

test.describe('email set up in the console', () => {
  test('an admin sets the mail server, tests it against a real SMTP server before saving, and saves it', async ({ console: page, junction, smtp }, testInfo) => {
    // The dashboard says mail is not set up, and leads to where it is.
    await page.goto(`${junction.apiUrl}/#/`);
    const strip = page.getByRole('region', { name: /^Needs attention/ });
    await expect(strip).toContainText('Email is not set up (email.smtp.host is empty)');
    await strip.getByRole('link', { name: /^Fix it ?: Email is not set up/ }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await expect(page.getByText('Email: email is not set up (email.smtp.host is empty)')).toBeVisible();
    const form = page.getByRole('form', { name: 'Email (SMTP)' });

    // Checked before anything is sent.
    await form.getByLabel('SMTP server', { exact: true }).fill('127.0.0.1');
    await form.getByLabel('Port', { exact: true }).fill('99999');
    await form.getByRole('button', { name: 'Save email settings' }).click();
    await expect(form.getByText('Must be a whole number from 1 to 65535')).toBeVisible();
    await expect(form.getByText('Must be set when an SMTP server is set')).toBeVisible();

    await form.getByLabel('Port', { exact: true }).fill(String(smtp.port));
    await form.getByLabel('Refuse to send unless the connection is encrypted (STARTTLS)').click({ force: true });
    await form.getByLabel('User name').fill(SMTP_USER);
    await form.getByLabel('Password', { exact: true }).fill('not-the-smtp-password');
    await form.getByLabel('Sender address').fill('Junction <junction@clinic.example>');

    // A wrong password: the server's own answer is shown, and nothing is saved.
    await page.getByLabel('Test email address').fill('it@clinic.example');
    await page.getByRole('button', { name: 'Send test email' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Test not sent' });
    await expect(refused).toContainText('535');
    await expect(refused).toContainText('Invalid username or password');
    expect(smtp.received).toEqual([]);

    await form.getByLabel('Password', { exact: true }).fill(SMTP_PASSWORD);
    await page.getByRole('button', { name: 'Send test email' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Test sent' })).toContainText('The mail server answered: 250');
    expect(smtp.received.map((m) => ({ to: m.to, user: m.user }))).toEqual([{ to: ['it@clinic.example'], user: SMTP_USER }]);
    const before = await junction.api('GET', '/settings');
    expect((before.json as { email: { configured: boolean } }).email.configured).toBe(false);
    await shot(page, testInfo, 'settings-tested');

    await form.getByRole('button', { name: 'Save email settings' }).click();
    await expect(form.getByText('Saved. Junction uses these values from now on.')).toBeVisible();
    await expect(form.getByText('Saved here').first()).toBeVisible();
    await expect(page.getByText('Email: email is not set up')).toHaveCount(0);
    await expectNoHorizontalScroll(page);

    // The dashboard no longer lists it.
    await page.goto(`${junction.apiUrl}/#/`);
    // Once the list has loaded (the strip, or its "Nothing needs attention").
    const loaded = page.getByTestId('attention-strip');
    await expect(loaded).toBeVisible();
    await expect(loaded).not.toContainText('Email is not set up');
    await page.goto(`${junction.apiUrl}/#/settings`);

    // Applied at once: a test message through the outbox goes out with what was saved.
    const sent = await junction.api('POST', '/notifications/test', { method: 'email', to: 'ops@clinic.example' });
    expect(sent.json).toMatchObject({ status: 'sent' });
    expect(smtp.received.some((m) => m.to.includes('ops@clinic.example') && m.user === SMTP_USER)).toBe(true);

    // Kept: the page shows it saved, the password only as saved.
    await page.reload();
    await expect(form.getByLabel('SMTP server', { exact: true })).toHaveValue('127.0.0.1');
    await expect(form.getByText('One is saved: leave blank to keep it')).toBeVisible();
    const settings = await junction.api('GET', '/settings');
    expect(settings.text).not.toContain(SMTP_PASSWORD);

    // Back to the file's values.
    await form.getByRole('button', { name: "Use the file's values" }).click();
    await expect(form.getByText("Back to the configuration file's values.")).toBeVisible();
    await expect(form.getByLabel('SMTP server', { exact: true })).toHaveValue('');
  });
});

test.describe('an external address in a contact group', () => {
  let failing: Server;
  test.beforeAll(async () => {
    failing = createServer((_req, res) => {
      res.statusCode = 500;
      res.end('{"error":"lab down"}');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  });
  test.afterAll(async () => {
    await new Promise<void>((resolve) => failing.close(() => resolve()));
  });

  // Alerts are judged every 300 ms here instead of every minute; mail goes to the test's server.
  test.use({ env: { JUNCTION_ALERTS_MINUTE_MS: '300' } });

  test("receives the group's alert", async ({ console: page, junction, smtp }, testInfo) => {
    const saved = await junction.api('PUT', '/settings', { 'email.smtp.host': '127.0.0.1', 'email.smtp.port': smtp.port, 'email.smtp.requireTLS': false, 'email.smtp.user': SMTP_USER, 'email.smtp.password': SMTP_PASSWORD, 'email.fromAddress': 'Junction <junction@clinic.example>' });
    expect(saved.status, saved.text).toBe(200);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contact groups' }).click();
    await page.getByRole('button', { name: 'Add contact group' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add contact group' });
    await dialog.getByLabel(/^Group name/).fill('Lab vendor');
    await dialog.getByRole('button', { name: 'Add email address or phone number' }).click();
    await dialog.getByLabel('Other recipient 1 email address').fill('support@vendor');
    await dialog.getByRole('button', { name: 'Save group' }).click();
    await expect(dialog.getByText('Must be an email address, such as support@vendor.example')).toBeVisible();
    await dialog.getByLabel('Other recipient 1 email address').fill('support@vendor.example');
    await shot(page, testInfo, 'contact-group-external');
    await dialog.getByRole('button', { name: 'Save group' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByRole('table', { name: 'Contact groups' })).toContainText('Lab vendor');

    const groups = (await junction.api('GET', '/groups')).json as { _id: string; group: string; external?: { address: string }[] }[];
    const group = groups.find((g) => g.group === 'Lab vendor');
    expect(group?.external).toEqual([{ address: 'support@vendor.example', method: 'email', maxAlerts: 'no max' }]);
    const channel = await junction.api('POST', '/channels', {
      name: 'Lab results',
      urlPattern: '^/lab/.*$',
      authType: 'public',
      routes: [{ name: 'lab', host: '127.0.0.1', port: (failing.address() as AddressInfo).port, primary: true }],
      alerts: [{ condition: 'status', status: '5xx', users: [], groups: [group?._id ?? ''] }],
    });
    expect(channel.status, channel.text).toBe(201);
    // The channel cache and the alert job's cursor catch up before the failure is sent.
    await expect.poll(async () => (await fetch(`${junction.httpUrl}/lab/fail`)).status, { timeout: 15_000 }).toBe(500);

    await expect.poll(() => smtp.received.find((m) => m.to.includes('support@vendor.example'))?.subject ?? '', { timeout: 20_000 }).toContain('status 5xx on Lab results');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts and messages' }).click();
    await expect(page.getByRole('table').first()).toContainText('support@vendor.example');
  });
});
