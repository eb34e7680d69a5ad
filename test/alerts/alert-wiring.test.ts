/**
 * The alert job in a started Junction, end to end: a transaction through the HTTP port fails, the next run of the
 * `alerts` job records an alert, and delivery sends it to a real SMTP server.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALERT_JOB_NAME } from '../../service/alerts/alert-job.js';
import { ROOT_EMAIL } from '../../service/accounts/users.js';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { startSmtpServer } from '../notify/smtp-server.js';
import type { TestSmtpServer } from '../notify/smtp-server.js';

let t: TestJunction;
let smtp: TestSmtpServer;
let upstream: Upstream;
let admin: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  upstream = await httpUpstream((req, res) => {
    res.statusCode = req.url === '/lab/fail' ? 500 : 200;
    res.end('{}');
  });
  t = await startJunction({
    timeZone: 'Africa/Nairobi',
    email: { fromAddress: 'Junction <junction@clinic.example>', smtp: { host: '127.0.0.1', port: smtp.port, requireTLS: false } },
    alerts: { himInstance: 'Clinic test', consoleURL: 'https://junction.clinic.example:8080' },
  });
  admin = { authorization: await unlockRoot(t) };
});

afterAll(async () => {
  await t.destroy();
  await smtp.close();
  await upstream.close();
});

it('alerts by email on a status rule for transactions that went through the HTTP port', async () => {
  const made = await t.request('/channels', {
    method: 'POST',
    headers: admin,
    json: {
      name: 'Lab <results>',
      urlPattern: '^/lab/.*$',
      authType: 'public',
      routes: [{ name: 'lab', host: '127.0.0.1', port: upstream.port, primary: true }],
      alerts: [{ condition: 'status', status: '5xx', users: [{ user: ROOT_EMAIL, method: 'email', maxAlerts: 'no max' }] }],
    },
  });
  expect(made.status).toBe(201);
  // A first run sets the cursor, as a run at start does.
  await t.junction.runJob(ALERT_JOB_NAME);

  const ids: string[] = [];
  for (const path of ['/lab/fail', '/lab/ok', '/lab/fail']) {
    const res = await fetch(`${t.httpUrl}${path}`);
    await res.arrayBuffer();
    const id = res.headers.get('x-transaction-id') ?? (await t.junction.transactions.page({ path: `^${path}$` }, { limit: 1 }))[0]?._id ?? null;
    ids.push((await completedTransaction(t, id))._id);
  }
  await t.junction.runJob(ALERT_JOB_NAME);
  const mail = await until('the alert email', () => smtp.received.find((m) => m.parsed.subject?.includes('Lab <results>')));
  expect(mail.rcptTo).toEqual([ROOT_EMAIL]);
  const text = mail.parsed.text ?? '';
  // Failed transactions are said to have failed, not completed (issue 33).
  expect(text).toContain('2 transactions failed with response status 5xx');
  expect(text).not.toContain('completed');
  expect(text).toContain('(Africa/Nairobi)');
  expect(text).toContain(`https://junction.clinic.example:8080/#/transactions/${ids[0]!}`);
  expect(text).toContain(`https://junction.clinic.example:8080/#/transactions/${ids[2]!}`);
  expect(text).not.toContain(ids[1]!);
  const html = typeof mail.parsed.html === 'string' ? mail.parsed.html : '';
  expect(html).toContain('Lab &lt;results&gt;');

  // Listed with its outcome, and a further run reports nothing again.
  const listed = await t.request('/notifications?kind=alert', { headers: admin });
  expect(listed.body).toMatchObject([{ kind: 'alert', status: 'sent', to: ROOT_EMAIL, alert: { count: 2, transactionIds: [ids[0], ids[2]] } }]);
  await t.junction.runJob(ALERT_JOB_NAME);
  expect(((await t.request('/notifications?kind=alert', { headers: admin })).body as unknown[]).length).toBe(1);
  await expect(t.junction.runJob('no-such-job')).rejects.toThrow(/no scheduled job/);
});

it('opens set-password links at alerts.consoleURL too, and shows admins where links point', async () => {
  const about = await t.request('/about', { headers: admin });
  expect((about.body as { messageLinks?: unknown }).messageLinks).toEqual({ url: 'https://junction.clinic.example:8080', configured: true });
  const invited = await t.request('/users', { method: 'POST', headers: admin, json: { email: 'nurse@clinic.example', firstname: 'N', surname: 'N', groups: ['nurses'] } });
  expect(invited.status, invited.text).toBe(201);
  const mail = await until('the invitation email', () => smtp.received.find((m) => m.rcptTo.includes('nurse@clinic.example')));
  expect(mail.parsed.text ?? '').toMatch(/https:\/\/junction\.clinic\.example:8080\/#\/set-password\/\S+/);
});

it('says so in /about and the log when no console address is configured', async () => {
  const guessed = await startJunction();
  try {
    const auth = { authorization: await unlockRoot(guessed) };
    const about = await guessed.request('/about', { headers: auth });
    // The API listens on 127.0.0.1 here; a wildcard address would give the machine's LAN address instead.
    expect((about.body as { messageLinks?: unknown }).messageLinks).toEqual({ url: guessed.url, configured: false });
    expect(guessed.logs.some((line) => typeof line.msg === 'string' && line.msg.startsWith('alerts.consoleURL is not set'))).toBe(true);
  } finally {
    await guessed.destroy();
  }
});

