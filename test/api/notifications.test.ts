/**
 * Messages to people through the API: `GET /notifications` (filters, paging, newest first, 400s), the test message
 * (`POST /notifications/test`) against a real SMTP server, permissions, and an invited user's set-password link
 * arriving by email and working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';
import type { Notification } from '../../service/contracts/notifications.js';
import { startSmtpServer } from '../notify/smtp-server.js';
import type { TestSmtpServer } from '../notify/smtp-server.js';

interface ErrorAnswer {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

const CONSOLE = 'https://junction.clinic.example:8443';

describe('notifications API', () => {
  let smtp: TestSmtpServer;
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };

  beforeAll(async () => {
    smtp = await startSmtpServer({ auth: { user: 'mailer', password: 'mail-pass' } });
    t = await startJunction({
      email: { fromAddress: 'Junction <junction@clinic.example>', smtp: { host: '127.0.0.1', port: smtp.port, requireTLS: false, user: 'mailer', password: 'mail-pass', timeoutSeconds: 5 } },
      alerts: { consoleURL: `${CONSOLE}/`, himInstance: 'Clinic HIM' },
    });
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    expect((await t.inject('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    nurse = { authorization: basic(user.email, user.password) };
  });
  afterAll(async () => {
    await t.destroy();
    await smtp.close();
  });

  const list = (query = '', headers = admin) => t.inject(`/notifications${query}`, { headers });
  const sendTest = (json: unknown, headers = admin) => t.inject('/notifications/test', { method: 'POST', headers, json });
  const problems = (res: TestResponse) => ((res.body as ErrorAnswer).error.details ?? []).map((d) => d.path);

  it('sends a test email through the SMTP server and answers with the sent record', async () => {
    const res = await sendTest({ method: 'email', to: 'ops@clinic.example' });
    expect(res.status).toBe(201);
    const record = res.body as Notification;
    expect(record).toMatchObject({ kind: 'test', method: 'email', to: 'ops@clinic.example', subject: 'Clinic HIM: test message', status: 'sent', attempts: 1 });
    expect(record.sentAt).toEqual(expect.any(String));
    expect(record).not.toHaveProperty('text');
    const mail = smtp.received.find((m) => m.rcptTo.includes('ops@clinic.example'));
    expect(mail?.parsed.subject).toBe('Clinic HIM: test message');
    expect(mail?.parsed.text).toContain(`sent by root@junction.local`);
    expect(mail?.parsed.html).toContain('<p>This is a test message from Clinic HIM');
  });

  it('answers a test SMS with its failure when no gateway is set, so the admin sees why', async () => {
    const res = await sendTest({ method: 'sms', to: '+27821234567' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'test', method: 'sms', to: '+27821234567', status: 'failed', attempts: 1, lastError: 'SMS is not set up (sms.gatewayUrl is empty)' });
  });

  it('refuses a test message to an address that does not suit the method, naming it', async () => {
    const email = await sendTest({ method: 'email', to: '+27821234567' });
    expect(email.status).toBe(400);
    expect(problems(email)).toEqual(['body.to']);
    expect((email.body as ErrorAnswer).error.message).toBe('body.to must be an email address');
    const phone = await sendTest({ method: 'sms', to: '082 123 4567' });
    expect(phone.status).toBe(400);
    expect((phone.body as ErrorAnswer).error.message).toMatch(/^body\.to must be a phone number/);
    const method = await sendTest({ method: 'pigeon', to: 'ops@clinic.example' });
    expect(method.status).toBe(400);
    expect((await sendTest({ method: 'email' })).status).toBe(400);
    expect((await sendTest({ method: 'email', to: 'ops@clinic.example', extra: 1 })).status).toBe(400);
  });

  it('is for admins only: 401 when not signed in, 403 for others', async () => {
    expect((await t.inject('/notifications')).status).toBe(401);
    expect((await t.inject('/notifications/test', { method: 'POST', json: { method: 'email', to: 'ops@clinic.example' } })).status).toBe(401);
    const listed = await list('', nurse);
    expect(listed.status).toBe(403);
    expect((listed.body as ErrorAnswer).error.code).toBe('FORBIDDEN');
    expect((await sendTest({ method: 'email', to: 'ops@clinic.example' }, nurse)).status).toBe(403);
  });

  it('emails an invited user a set-password link that works', async () => {
    const invited = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'Ivy@Clinic.example', firstname: 'Ivy', surname: 'Intern', groups: ['nurses'] } });
    expect(invited.status).toBe(201);
    const mail = await until('the set-password email', () => smtp.received.find((m) => m.rcptTo.includes('ivy@clinic.example')));
    expect(mail.parsed.subject).toBe('Clinic HIM: set your password');
    const link = new RegExp(`${CONSOLE.replace(/\./g, '\\.')}/#/set-password/([0-9a-f]{64})`).exec(mail.parsed.text ?? '');
    expect(link).not.toBeNull();
    const token = link?.[1] ?? '';
    expect(mail.parsed.html).toContain(`href="${CONSOLE}/#/set-password/${token}"`);

    const opened = await t.inject(`/token/${token}`);
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ email: 'ivy@clinic.example', tokenType: 'newUser', locked: true });
    expect((await t.inject(`/token/${token}`, { method: 'PUT', json: { password: 'ivy-new-password-77' } })).status).toBe(200);
    expect((await t.inject('/me', { headers: { authorization: basic('ivy@clinic.example', 'ivy-new-password-77') } })).status).toBe(200);

    // The record keeps who it was for, and not the link.
    const records = (await list('?kind=password&user=IVY@clinic.example')).body as Notification[];
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ kind: 'password', method: 'email', user: 'ivy@clinic.example', to: 'ivy@clinic.example', status: 'sent' });
    const stored = await t.junction.store.notifications.findById(records[0]?._id ?? '');
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('lists records newest first, narrowed by kind, status and user, in pages', async () => {
    const all = (await list()).body as Notification[];
    expect(all.length).toBeGreaterThanOrEqual(3);
    const created = all.map((n) => n.created);
    expect(created).toEqual([...created].sort().reverse());
    expect(((await list('?kind=test')).body as Notification[]).every((n) => n.kind === 'test')).toBe(true);
    const failed = (await list('?status=failed')).body as Notification[];
    expect(failed.map((n) => n.to)).toEqual(['+27821234567']);
    expect((await list('?kind=report')).body).toEqual([]);
    const first = (await list('?limit=1')).body as Notification[];
    const second = (await list('?limit=1&skip=1')).body as Notification[];
    expect(first).toEqual([all[0]]);
    expect(second).toEqual([all[1]]);
  });

  it('refuses bad query values with 400 naming them', async () => {
    for (const [query, path] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?skip=-1', 'skip'],
      ['?kind=letter', 'kind'],
      ['?status=lost', 'status'],
      ['?colour=red', 'colour'],
      ['?user=nobody', 'user'],
    ] as const) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect((res.body as ErrorAnswer).error.message, query).toContain(path);
    }
  });
});
