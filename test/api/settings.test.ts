/**
 * Issue 35: the settings a clinic changes in the console (`/settings`), on both storage engines: listed with where
 * each value comes from, saved over the configuration file's (secrets sealed at rest and masked in answers), checked
 * as the file's would be, cleared back to the file's value, tried with the Test button against real SMTP servers
 * before saving, applied to the next message without a restart, and admins only.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_JOB_NAME } from '../../service/alerts/alert-job.js';
import type { ClinicSetting, ClinicSettingsAnswer } from '../../service/contracts/settings.js';
import { basic, completedTransaction, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { createTestDatabase, runSql } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { startSmtpServer } from '../notify/smtp-server.js';
import type { TestSmtpServer } from '../notify/smtp-server.js';

interface ErrorAnswer {
  error: { code: string; message: string; details?: { path: string; message: string }[] | Record<string, unknown> | null };
}

const SMTP_PASSWORD = 'smtp-secret-pass-42';

for (const engine of ['embedded', 'postgres'] as const) {
  describe(`settings in the console (${engine})`, () => {
    let db: TestDatabase | undefined;
    let fileSmtp: TestSmtpServer;
    let consoleSmtp: TestSmtpServer;
    let upstream: Upstream;
    let t: TestJunction;
    let admin: { authorization: string };
    let nurse: { authorization: string };

    beforeAll(async () => {
      // The file's server takes mail without login; the one set in the console wants a password.
      fileSmtp = await startSmtpServer();
      consoleSmtp = await startSmtpServer({ auth: { user: 'mailer', password: SMTP_PASSWORD } });
      upstream = await httpUpstream((req, res) => {
        res.statusCode = req.url === '/lab/fail' ? 500 : 200;
        res.end('{}');
      });
      db = engine === 'postgres' ? await createTestDatabase() : undefined;
      t = await startJunction({
        email: { fromAddress: 'Junction <junction@clinic.example>', smtp: { host: '127.0.0.1', port: fileSmtp.port, requireTLS: false, timeoutSeconds: 5 } },
        alerts: { himInstance: 'Clinic HIM' },
        ...(db === undefined ? {} : { storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(await tempDir(), 'keystore.secret') } }),
      });
      admin = { authorization: await unlockRoot(t) };
      const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
      expect((await t.inject('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
      nurse = { authorization: basic(user.email, user.password) };
    });
    afterAll(async () => {
      await t?.destroy();
      await db?.drop();
      await fileSmtp?.close();
      await consoleSmtp?.close();
      await upstream?.close();
    });

    const get = async (): Promise<ClinicSettingsAnswer> => {
      const res = await t.inject('/settings', { headers: admin });
      expect(res.status, res.text).toBe(200);
      return res.body as ClinicSettingsAnswer;
    };
    const setting = (answer: ClinicSettingsAnswer, key: string): ClinicSetting | undefined => answer.settings.find((s) => s.key === key);
    const put = (json: unknown, headers = admin) => t.inject('/settings', { method: 'PUT', headers, json });
    const paths = (res: TestResponse) => {
      const details = (res.body as ErrorAnswer).error.details;
      return Array.isArray(details) ? details.map((d) => d.path) : [];
    };

    it('lists every setting with its value in force and where it comes from', async () => {
      const answer = await get();
      expect(setting(answer, 'email.smtp.host')).toEqual({ key: 'email.smtp.host', secret: false, source: 'file', value: '127.0.0.1', fileValue: '127.0.0.1' });
      expect(setting(answer, 'sms.gatewayUrl')).toMatchObject({ source: 'default', value: '' });
      expect(setting(answer, 'email.smtp.password')).toEqual({ key: 'email.smtp.password', secret: true, source: 'default', set: false });
      expect(setting(answer, 'backup.schedule')).toMatchObject({ source: 'default', value: '0 2 * * *' });
      expect(answer.email).toEqual({ configured: true });
      expect(answer.sms).toEqual({ configured: false, problem: 'SMS is not set up (sms.gatewayUrl is empty)' });
    });

    it('is for admins only: 401 without credentials, 403 for other users', async () => {
      expect((await t.inject('/settings')).status).toBe(401);
      expect((await t.inject('/settings', { headers: nurse })).status).toBe(403);
      expect((await put({ 'alerts.consoleURL': 'https://x.example' }, nurse)).status).toBe(403);
      expect((await t.inject('/settings/email/test', { method: 'POST', headers: nurse, json: { to: 'a@b.example' } })).status).toBe(403);
      expect((await t.inject('/settings/sms/test', { method: 'POST', headers: nurse, json: { to: '+254700000001' } })).status).toBe(403);
      expect((await t.inject('/settings/email/test', { method: 'POST', json: { to: 'a@b.example' } })).status).toBe(401);
    });

    it('refuses values the configuration file could not hold, naming each key, and saves nothing', async () => {
      const port = await put({ 'email.smtp.port': 0 });
      expect(port.status).toBe(400);
      expect((port.body as ErrorAnswer).error.code).toBe('VALIDATION_FAILED');
      const schedule = await put({ 'backup.schedule': 'nightly', 'alerts.consoleURL': 'not a url' });
      expect(schedule.status).toBe(400);
      expect(paths(schedule).sort()).toEqual(['body.alerts.consoleURL', 'body.backup.schedule']);
      expect((schedule.body as ErrorAnswer).error.message).toMatch(/alerts\.consoleURL|backup\.schedule/);
      // Between keys: a sender address is needed once there is a host.
      const from = await put({ 'email.fromAddress': '' });
      expect(from.status).toBe(400);
      expect(paths(from)).toEqual(['body.email.fromAddress']);
      expect((await put({ 'email.smtp.hots': 'x' })).status).toBe(400);
      expect((await put({})).status).toBe(400);
      expect((await put({ 'email.smtp.port': 'twenty-five' })).status).toBe(400);
      expect(setting(await get(), 'backup.schedule')?.source).toBe('default');
    });

    it('tests the SMTP values of a form before they are saved, answering what the server said', async () => {
      const form = { 'email.smtp.port': consoleSmtp.port, 'email.smtp.user': 'mailer', 'email.smtp.password': SMTP_PASSWORD };
      const sent = await t.inject('/settings/email/test', { method: 'POST', headers: admin, json: { to: 'it@clinic.example', settings: form } });
      expect(sent.status, sent.text).toBe(200);
      expect(sent.body).toMatchObject({ sent: true, to: 'it@clinic.example', response: expect.stringMatching(/^250/) as string });
      const mail = await until('the test email', () => consoleSmtp.received.find((m) => m.rcptTo.includes('it@clinic.example')));
      expect(mail.user).toBe('mailer');
      expect(mail.parsed.subject).toBe('Clinic HIM: test of the email settings');

      const refused = await t.inject('/settings/email/test', { method: 'POST', headers: admin, json: { to: 'it@clinic.example', settings: { ...form, 'email.smtp.password': 'wrong-password' } } });
      expect(refused.status).toBe(502);
      const error = (refused.body as ErrorAnswer).error;
      expect(error.code).toBe('SETTINGS_TEST_FAILED');
      // The server's own words: smtp-server answers a failed login with 535.
      expect(error.message).toMatch(/535/);
      expect(error.message).toContain('Invalid username or password');

      const nobody = await t.inject('/settings/email/test', { method: 'POST', headers: admin, json: { to: 'not-an-address' } });
      expect(nobody.status).toBe(400);
      expect(paths(nobody)).toEqual(['body.to']);
      const badForm = await t.inject('/settings/email/test', { method: 'POST', headers: admin, json: { to: 'it@clinic.example', settings: { 'email.smtp.port': 70000 } } });
      expect(badForm.status).toBe(400);
      const noGateway = await t.inject('/settings/sms/test', { method: 'POST', headers: admin, json: { to: '+254 700 000 001' } });
      expect(noGateway.status).toBe(400);
      expect((noGateway.body as ErrorAnswer).error.message).toContain('sms.gatewayUrl is empty');
      // Nothing was saved by testing.
      expect(setting(await get(), 'email.smtp.port')).toMatchObject({ source: 'file', value: fileSmtp.port });
    });

    it('tests SMS gateway values before they are saved, with what the gateway answered', async () => {
      const posted: string[] = [];
      const gateway = await httpUpstream((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          posted.push(body);
          const allowed = req.headers.authorization === 'Bearer right-key';
          res.writeHead(allowed ? 202 : 401, { 'content-type': 'text/plain' });
          res.end(allowed ? 'queued' : 'bad key');
        });
      });
      try {
        const form = { 'sms.gatewayUrl': `http://127.0.0.1:${gateway.port}/send`, 'sms.authorization': 'Bearer right-key' };
        const sent = await t.inject('/settings/sms/test', { method: 'POST', headers: admin, json: { to: '+254 700 000 001', settings: form } });
        expect(sent.status, sent.text).toBe(200);
        expect(sent.body).toEqual({ sent: true, to: '+254700000001', response: '202 queued' });
        expect(JSON.parse(posted[0] ?? '{}')).toMatchObject({ to: '+254700000001', text: expect.stringContaining('test of the SMS settings') as string });
        const refused = await t.inject('/settings/sms/test', { method: 'POST', headers: admin, json: { to: '+254700000001', settings: { ...form, 'sms.authorization': 'Bearer wrong' } } });
        expect(refused.status).toBe(502);
        expect((refused.body as ErrorAnswer).error.message).toContain('the SMS gateway answered 401: bad key');
        expect(setting(await get(), 'sms.gatewayUrl')?.source).toBe('default');
      } finally {
        await gateway.close();
      }
    });

    it('saves over the file, seals the password at rest, masks it, and sends the next alert through the new server without a restart', async () => {
      const saved = await put({ 'email.smtp.port': consoleSmtp.port, 'email.smtp.user': 'mailer', 'email.smtp.password': SMTP_PASSWORD, 'alerts.consoleURL': 'https://junction.clinic.example:9443' });
      expect(saved.status, saved.text).toBe(200);
      const answer = saved.body as ClinicSettingsAnswer;
      expect(setting(answer, 'email.smtp.port')).toMatchObject({ source: 'console', value: consoleSmtp.port, changedBy: 'root@junction.local', changed: expect.any(String) as string });
      expect(setting(answer, 'email.smtp.password')).toMatchObject({ source: 'console', set: true, secret: true });
      expect(saved.text).not.toContain(SMTP_PASSWORD);
      // At rest: the password is sealed with the keystore secret in the collection's file or row.
      const stored = db === undefined ? await readFile(join(t.dataDir, (await readdir(t.dataDir)).find((f) => f.startsWith('settings')) ?? 'settings.db'), 'utf8') : JSON.stringify((await runSql(db.url, 'SELECT doc FROM store_settings')).rows);
      expect(stored).toContain('email.smtp.password');
      expect(stored).not.toContain(SMTP_PASSWORD);
      expect(stored).toMatch(/junction-sealed:v1:/);

      const made = await t.inject('/channels', {
        method: 'POST',
        headers: admin,
        json: { name: 'Lab', urlPattern: '^/lab/.*$', authType: 'public', routes: [{ name: 'lab', host: '127.0.0.1', port: upstream.port, primary: true }], alerts: [{ condition: 'status', status: '5xx', users: [{ user: 'root@junction.local', method: 'email', maxAlerts: 'no max' }] }] },
      });
      expect(made.status, made.text).toBe(201);
      await t.junction.runJob(ALERT_JOB_NAME);
      const res = await fetch(`${t.httpUrl}/lab/fail`);
      await res.arrayBuffer();
      const id = (await t.junction.transactions.page({ path: '^/lab/fail$' }, { limit: 1 }))[0]?._id ?? null;
      await completedTransaction(t, id);
      const before = fileSmtp.received.length;
      await t.junction.runJob(ALERT_JOB_NAME);
      const mail = await until('the alert through the SMTP server saved in the console', () => consoleSmtp.received.find((m) => m.parsed.subject?.includes('status 5xx on Lab')));
      expect(mail.user).toBe('mailer');
      expect(mail.parsed.text ?? '').toContain('https://junction.clinic.example:9443/#/transactions/');
      expect(fileSmtp.received.length).toBe(before);
    });

    it('clears a saved value back to the file\'s', async () => {
      const cleared = await put({ 'email.smtp.port': null, 'email.smtp.user': null, 'email.smtp.password': null, 'alerts.consoleURL': null });
      expect(cleared.status, cleared.text).toBe(200);
      const answer = cleared.body as ClinicSettingsAnswer;
      expect(setting(answer, 'email.smtp.port')).toMatchObject({ source: 'file', value: fileSmtp.port, fileValue: fileSmtp.port });
      expect(setting(answer, 'email.smtp.port')).not.toHaveProperty('changedBy');
      expect(setting(answer, 'email.smtp.password')).toMatchObject({ source: 'default', set: false });
      expect(setting(answer, 'alerts.consoleURL')).toMatchObject({ source: 'default', value: '' });
      const about = await t.inject('/about', { headers: admin });
      expect((about.body as { messageLinks?: { configured: boolean } }).messageLinks?.configured).toBe(false);
    });

    it('takes a backup schedule on the embedded engine, and refuses a backup folder on PostgreSQL', async () => {
      const folder = join(await tempDir('junction-backups-'), 'scheduled');
      const res = await put({ 'backup.folder': folder, 'backup.schedule': '12 hours', 'backup.keep': 3 });
      if (engine === 'postgres') {
        expect(res.status).toBe(400);
        expect(paths(res)).toContain('body.backup.folder');
        return;
      }
      expect(res.status, res.text).toBe(200);
      const status = await t.inject('/backup/status', { headers: admin });
      expect(status.body).toMatchObject({ schedule: { enabled: true, folder, schedule: '12 hours', keep: 3 } });
      // The job follows the saved folder at once: a run writes there.
      await t.junction.runJob('backup');
      expect((await readdir(folder)).filter((f) => f.startsWith('junction-backup-'))).toHaveLength(1);
      expect((await put({ 'backup.folder': null })).status).toBe(200);
      await expect(t.junction.runJob('backup')).rejects.toThrow(/no scheduled job/);
    });
  });
}

describe('settings saved on one instance apply on the other (PostgreSQL)', () => {
  let db: TestDatabase;
  let smtp: TestSmtpServer;
  const instances: TestJunction[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    smtp = await startSmtpServer();
    const shared = join(await tempDir('junction-settings-shared-'), 'keystore.secret');
    for (let i = 0; i < 2; i++) instances.push(await startJunction({ storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: shared } }));
  });
  afterAll(async () => {
    for (const t of instances.splice(0)) await t.destroy();
    await db?.drop();
    await smtp?.close();
  });

  it('sends the next message on the second instance through the SMTP server saved on the first', async () => {
    const [a, b] = instances as [TestJunction, TestJunction];
    const admin = { authorization: await unlockRoot(a) };
    const saved = await a.inject('/settings', { method: 'PUT', headers: admin, json: { 'email.fromAddress': 'Junction <junction@clinic.example>', 'email.smtp.host': '127.0.0.1', 'email.smtp.port': smtp.port, 'email.smtp.requireTLS': false } });
    expect(saved.status, saved.text).toBe(200);
    await until('the second instance to apply the settings', async () => ((await b.inject('/settings', { headers: admin })).body as ClinicSettingsAnswer).email.configured || undefined);
    const sent = await b.inject('/notifications/test', { method: 'POST', headers: admin, json: { method: 'email', to: 'ops@clinic.example' } });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body).toMatchObject({ status: 'sent' });
    expect(smtp.received.some((m) => m.rcptTo.includes('ops@clinic.example'))).toBe(true);
  });
});
