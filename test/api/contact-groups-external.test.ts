/**
 * Issue 35: contact groups take recipients who are not console users (a vendor's address, an IT list, a phone),
 * checked as addresses, stored on both engines, and reached by the group's alerts through the same outbox: email
 * through a real SMTP server, SMS through a real HTTP gateway.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_JOB_NAME } from '../../service/alerts/alert-job.js';
import { completedTransaction, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { startSmtpServer } from '../notify/smtp-server.js';
import type { TestSmtpServer } from '../notify/smtp-server.js';

interface ErrorAnswer {
  error: { code: string; message: string; details: { path: string; message: string }[] };
}

for (const engine of ['embedded', 'postgres'] as const) {
  describe(`contact groups with external recipients (${engine})`, () => {
    let db: TestDatabase | undefined;
    let smtp: TestSmtpServer;
    let gateway: Upstream;
    const texts: Record<string, string>[] = [];
    let upstream: Upstream;
    let t: TestJunction;
    let admin: { authorization: string };

    beforeAll(async () => {
      smtp = await startSmtpServer();
      gateway = await httpUpstream((req, res) => {
        void readBody(req).then((body) => {
          texts.push(JSON.parse(body) as Record<string, string>);
          res.writeHead(202, { 'content-type': 'text/plain' });
          res.end('queued');
        });
      });
      upstream = await httpUpstream((req, res) => {
        res.statusCode = req.url === '/lab/fail' ? 500 : 200;
        res.end('{}');
      });
      db = engine === 'postgres' ? await createTestDatabase() : undefined;
      t = await startJunction({
        email: { fromAddress: 'Junction <junction@clinic.example>', smtp: { host: '127.0.0.1', port: smtp.port, requireTLS: false, timeoutSeconds: 5 } },
        sms: { gatewayUrl: `http://127.0.0.1:${gateway.port}/send`, timeoutSeconds: 5 },
        ...(db === undefined ? {} : { storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(await tempDir(), 'keystore.secret') } }),
      });
      admin = { authorization: await unlockRoot(t) };
    });
    afterAll(async () => {
      await t?.destroy();
      await db?.drop();
      await smtp?.close();
      await gateway?.close();
      await upstream?.close();
    });

    const post = (json: unknown) => t.inject('/groups', { method: 'POST', headers: admin, json });
    const paths = (res: TestResponse) => (res.body as ErrorAnswer).error.details.map((d) => d.path);
    let groupId = '';

    it('stores external addresses beside users, normalised, and answers them', async () => {
      const res = await post({
        group: 'Vendor and IT',
        users: [{ user: 'root@junction.local', method: 'email' }],
        external: [
          { address: ' support@vendor.example ', method: 'email' },
          { address: '+254 700-000 001', method: 'sms', maxAlerts: '1 per day' },
        ],
      });
      expect(res.status, res.text).toBe(201);
      const group = res.body as { _id: string; external: unknown };
      groupId = group._id;
      expect(group.external).toEqual([
        { address: 'support@vendor.example', method: 'email', maxAlerts: 'no max' },
        { address: '+254700000001', method: 'sms', maxAlerts: '1 per day' },
      ]);
      const read = await t.inject(`/groups/${groupId}`, { headers: admin });
      expect((read.body as { external: unknown }).external).toEqual(group.external);
      // A group without any is answered in OpenHIM's shape, with no external field.
      const plain = await post({ group: 'Plain', users: [] });
      expect(plain.body).not.toHaveProperty('external');
    });

    it('refuses an address that does not suit its method, and one listed twice, naming each', async () => {
      const res = await post({
        group: 'Bad',
        external: [
          { address: 'not-an-address', method: 'email' },
          { address: '0700 CALL ME', method: 'sms' },
          { address: 'it@clinic.example', method: 'email' },
          { address: 'IT@clinic.example', method: 'email' },
        ],
      });
      expect(res.status).toBe(400);
      expect(paths(res)).toEqual(['body.external.0.address', 'body.external.1.address', 'body.external.3']);
      expect((await post({ group: 'Bad', external: [{ address: 'x@y.example', method: 'pigeon' }] })).status).toBe(400);
      expect((await post({ group: 'Bad', external: [{ address: 'x@y.example', method: 'email', extra: 1 }] })).status).toBe(400);
      expect((await t.inject('/groups', { headers: admin })).text).not.toContain('"Bad"');
    });

    it('changes the external list alone on update, keeping it when left out', async () => {
      const renamed = await t.inject(`/groups/${groupId}`, { method: 'PUT', headers: admin, json: { group: 'Vendor and IT on-call' } });
      expect(renamed.status, renamed.text).toBe(200);
      expect((renamed.body as { external: unknown[] }).external).toHaveLength(2);
    });

    it('sends the group\'s alert to the external address and phone through the outbox', async () => {
      const made = await t.inject('/channels', {
        method: 'POST',
        headers: admin,
        json: { name: 'Lab', urlPattern: '^/lab/.*$', authType: 'public', routes: [{ name: 'lab', host: '127.0.0.1', port: upstream.port, primary: true }], alerts: [{ condition: 'status', status: '5xx', users: [], groups: [groupId] }] },
      });
      expect(made.status, made.text).toBe(201);
      await t.junction.runJob(ALERT_JOB_NAME);
      const res = await fetch(`${t.httpUrl}/lab/fail`);
      await res.arrayBuffer();
      await completedTransaction(t, (await t.junction.transactions.page({ path: '^/lab/fail$' }, { limit: 1 }))[0]?._id ?? null);
      await t.junction.runJob(ALERT_JOB_NAME);
      const mail = await until('the alert to the vendor', () => smtp.received.find((m) => m.rcptTo.includes('support@vendor.example')));
      expect(mail.parsed.subject).toContain('status 5xx on Lab');
      const sms = await until('the alert SMS', () => texts.find((x) => x.to === '+254700000001'));
      expect(sms.text).toContain('Lab');
      // The user in the group is alerted as before, and every message is listed with its outcome.
      await until('the alert to the user', () => smtp.received.find((m) => m.rcptTo.includes('root@junction.local')));
      const listed = await until('all three sent', async () => {
        const records = (await t.inject('/notifications?kind=alert', { headers: admin })).body as { to: string; status: string }[];
        return records.filter((r) => r.status === 'sent').length === 3 ? records : undefined;
      });
      expect(listed.map((r) => r.to).sort()).toEqual(['+254700000001', 'root@junction.local', 'support@vendor.example']);
    });
  });
}
