/**
 * `GET /attention` (issue 35) with real parts: a tcp channel saved private with nobody admitted that refuses a real
 * MLLP sender, a listener whose port a real socket already holds, a mediator whose heartbeats stopped (its clock
 * moved on, no sleep), a trusted CA generated to expire in ten days, a route that is down filling the auto-retry
 * queue; then, on a second instance, a real SMTP server refusing every recipient, a data folder on a small disk of
 * its own, and a backup folder that cannot be made.
 */
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, ROOT_EMAIL, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import type { TestJunction } from '../helpers/junction.js';
import { mountSmallDisk } from '../helpers/small-disk.js';
import type { SmallDisk } from '../helpers/small-disk.js';
import { until } from '../helpers/wait.js';
import { adt, freePort, hl7Send, msaOf } from '../transports/fixtures.js';
import { generateCertificate } from '../../service/keystore/generate.js';
import type { AttentionItem, AttentionList } from '../../service/contracts/attention.js';

const route = (port: number) => ({ name: 'lab system', type: 'mllp', host: '127.0.0.1', port, primary: true });

describe.each(['embedded', 'postgres'] as const)('GET /attention on the %s engine', (engine) => {
  let t: TestJunction;
  let db: TestDatabase | undefined;
  let admin: { authorization: string };
  let nurse: { authorization: string };
  let skewMs = 0;
  let holder: Server;
  const ids: Record<string, string> = {};

  const list = async (headers = admin): Promise<AttentionItem[]> => {
    const res = await t.inject('/attention', { headers });
    expect(res.status, res.text).toBe(200);
    return (res.body as AttentionList).items;
  };
  const ofKind = async (kind: string, headers = admin) => (await list(headers)).filter((i) => i.kind === kind);
  const create = async (json: Record<string, unknown>) => {
    const res = await t.request('/channels', { method: 'POST', headers: admin, json });
    expect(res.status, res.text).toBe(201);
    return res.body as { _id: string; admitsNobody?: string; listener?: { state: string } };
  };

  beforeAll(async () => {
    db = engine === 'postgres' ? await createTestDatabase() : undefined;
    const storage = db === undefined ? {} : { storage: { engine: 'postgres' as const, postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(await tempDir(), 'keystore.secret') } };
    t = await startJunction({ ...storage, mediators: { offlineAfterSeconds: 1 }, attention: { autoRetryQueueWarning: 1 } }, { clock: () => Date.now() + skewMs });
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    const made = await t.inject('/users', { method: 'POST', headers: admin, json: user });
    expect(made.status, made.text).toBe(201);
    nurse = { authorization: basic(user.email, user.password) };
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    await t.destroy();
    await db?.drop();
  });

  it('answers 401 without credentials', async () => {
    expect((await t.inject('/attention')).status).toBe(401);
  });

  it('names email that is not set up, with what would send by it, and fixes it in email.smtp.host', async () => {
    const [email] = await ofKind('email-not-set-up');
    expect(email).toMatchObject({ severity: 'warning', fix: { setting: 'email.smtp.host' } });
    expect((await t.inject('/attention', { headers: admin })).body).toMatchObject({ messaging: { email: 'email.smtp.host is empty', sms: 'sms.gatewayUrl is empty' } });
    expect((await t.inject('/attention', { headers: nurse })).body).not.toHaveProperty('messaging');
    expect(email?.message).toMatch(/^Email is not set up \(email\.smtp\.host is empty\), so disk and certificate warnings to admins cannot be sent\.$/);
    // A channel alert by email makes it an error; one by SMS brings SMS in.
    await create({
      name: 'alerting',
      urlPattern: '^/alerting$',
      authType: 'public',
      routes: [{ name: 'up', host: '127.0.0.1', port: await freePort(), primary: true }],
      alerts: [{ condition: 'status', status: '500', users: [{ user: ROOT_EMAIL, method: 'email', maxAlerts: 'no max' }, { user: ROOT_EMAIL, method: 'sms', maxAlerts: 'no max' }] }],
    });
    const items = await list();
    expect(items.find((i) => i.kind === 'email-not-set-up')).toMatchObject({ severity: 'error', message: expect.stringContaining('1 channel alert rule') as unknown });
    expect(items.find((i) => i.kind === 'sms-not-set-up')).toMatchObject({ severity: 'error', fix: { setting: 'sms.gatewayUrl' } });
  });

  it('warns when a private tcp channel admitting nobody is saved, lists it, and counts the messages it refused', async () => {
    const tcpPort = await freePort();
    const locked = await create({ name: 'lab results', type: 'tcp', tcpHost: '127.0.0.1', tcpPort, authType: 'private', allow: ['lab'], txViewAcl: ['nurses'], routes: [route(await freePort())] });
    ids.locked = locked._id;
    expect(locked.admitsNobody).toMatch(/tcp channel cannot identify clients.*whitelist is empty/);
    expect((await t.inject(`/channels/${locked._id}`, { headers: admin })).body).toMatchObject({ admitsNobody: locked.admitsNobody });
    expect(await ofKind('channel-admits-nobody')).toContainEqual(expect.objectContaining({ channel: { _id: locked._id, name: 'lab results' }, fix: { path: `/channels/${locked._id}` } }));
    expect(t.logs.some((l) => l.msg === 'channel saved that admits nobody')).toBe(true);

    const [ack] = await hl7Send(tcpPort, [adt('LOCKED-1')]);
    expect(msaOf(ack ?? '').code).toBe('AR');
    const refusing = await until('the refusal counted', async () => (await ofKind('channel-refusing')).find((i) => i.channel?._id === locked._id));
    expect(refusing).toMatchObject({ severity: 'warning', count: 1, message: expect.stringMatching(/^Channel lab results refused 1 request or message in the last 60 minutes \(last reason: .+\)\.$/) as unknown });

    // Whitelisting the sender's address lets someone in: the warning goes.
    const fixed = await t.request(`/channels/${locked._id}`, { method: 'PUT', headers: admin, json: { whitelist: ['127.0.0.1'] } });
    expect(fixed.status).toBe(200);
    expect((fixed.body as { admitsNobody?: string }).admitsNobody).toBeUndefined();
    expect((await ofKind('channel-admits-nobody')).map((i) => i.channel?._id)).not.toContain(locked._id);
  });

  it('shows a listener that cannot bind its port because another socket holds it', async () => {
    const port = (holder.address() as AddressInfo).port;
    const clash = await create({ name: 'clashing', type: 'tcp', tcpHost: '127.0.0.1', tcpPort: port, authType: 'public', routes: [route(await freePort())] });
    ids.clash = clash._id;
    expect(clash.listener?.state).toBe('failed');
    const [item] = (await ofKind('listener-failed')).filter((i) => i.channel?._id === clash._id);
    expect(item).toMatchObject({ severity: 'error', fix: { path: `/channels/${clash._id}` } });
    expect(item?.message).toContain(`Channel clashing cannot listen on port ${port}`);
  });

  it('shows a mediator once its heartbeats stop', async () => {
    const urn = 'urn:mediator:attention-lab';
    const registered = await t.inject('/mediators', { method: 'POST', headers: admin, json: { urn, version: '1.0.0', name: 'Lab mediator', endpoints: [{ name: 'lab', host: '127.0.0.1', port: 7001, primary: true }] } });
    expect(registered.status, registered.text).toBe(201);
    expect((await t.inject(`/mediators/${encodeURIComponent(urn)}/heartbeat`, { method: 'POST', headers: admin, json: { uptime: 5 } })).status).toBe(200);
    expect(await ofKind('mediator-offline')).toEqual([]);
    skewMs += 5_000;
    const [offline] = await ofKind('mediator-offline');
    expect(offline).toMatchObject({ severity: 'warning', fix: { path: `/mediators/${encodeURIComponent(urn)}` } });
    expect(offline?.message).toMatch(/^Mediator Lab mediator is offline: its last heartbeat was \d+ minutes? ago\.$/);
    skewMs = 0;
  });

  it('shows a trusted CA that expires within keystore.expiryWarningDays', async () => {
    expect(await ofKind('certificate-expiring')).toEqual([]);
    const { certificate } = generateCertificate({ type: 'client', commonName: 'Lab CA', days: 10 });
    const added = await t.inject('/keystore/ca/cert', { method: 'POST', headers: admin, json: { cert: certificate } });
    expect(added.status, added.text).toBe(201);
    const [expiring] = await ofKind('certificate-expiring');
    expect(expiring).toMatchObject({ severity: 'warning', fix: { path: '/certificates' } });
    expect(expiring?.message).toMatch(/^The trusted CA certificate "Lab CA" expires in 9 days \(\d{4}-\d\d-\d\d\)\.$/);
  });

  it('says scheduled backups are off by default', async () => {
    expect(await ofKind('backups-off')).toEqual([expect.objectContaining({ severity: 'info', fix: { path: '/backup', setting: 'backup.folder' } })]);
  });

  it('shows the auto-retry queue once it reaches attention.autoRetryQueueWarning', async () => {
    const down = await create({ name: 'down', urlPattern: '^/down$', authType: 'public', autoRetryEnabled: true, routes: [{ name: 'gone', host: '127.0.0.1', port: await freePort(), primary: true }] });
    const sent = await fetch(`${t.httpUrl}/down`, { method: 'POST', body: 'x' });
    await sent.text();
    const [queued] = await until('the queued retry shown', async () => {
      const found = await ofKind('auto-retry-growing');
      return found.length > 0 ? found : undefined;
    });
    expect(queued).toMatchObject({ severity: 'warning', count: 1, channel: { _id: down._id, name: 'down' } });
    expect(queued?.message).toMatch(/^1 transaction on channel down wait for auto retry/);
  });

  it('lists worst first', async () => {
    const ranks = (await list()).map((i) => ['error', 'warning', 'info'].indexOf(i.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('shows a non-admin only the items about channels they may view', async () => {
    const items = await list(nurse);
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.channel?._id === ids.locked)).toBe(true);
    expect(items.map((i) => i.kind)).toContain('channel-refusing');
  });
});

describe('GET /attention: failed messages, low disk, failed backups', () => {
  let disk: SmallDisk;
  let smtp: SMTPServer;
  let t: TestJunction;
  let admin: { authorization: string };
  const ofKind = async (kind: string) => ((await t.inject('/attention', { headers: admin })).body as AttentionList).items.filter((i) => i.kind === kind);

  beforeAll(async () => {
    disk = mountSmallDisk(64);
    // A real SMTP server that refuses every recipient.
    smtp = new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const blocker = join(disk.dir, 'not-a-folder');
    await writeFile(blocker, 'x');
    t = await startJunction(
      {
        email: { fromAddress: 'junction@clinic.example', smtp: { host: '127.0.0.1', port: smtpPort, requireTLS: false, timeoutSeconds: 5 } },
        notifications: { maxAttempts: 1 },
        // Far above what a 64 MB disk has, so its level is low; the floor stays below it.
        storage: { disk: { warningMB: 1024, floorMB: 1 } },
        backup: { folder: join(blocker, 'backups') },
      },
      { dataDir: join(disk.dir, 'data') },
    );
    admin = { authorization: await unlockRoot(t) };
  });

  afterAll(async () => {
    await t.destroy();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    disk.remove();
  });

  it('does not name email once it is set up', async () => {
    expect(await ofKind('email-not-set-up')).toEqual([]);
  });

  it('shows messages the SMTP server refused', async () => {
    const sent = await t.inject('/notifications/test', { method: 'POST', headers: admin, json: { method: 'email', to: 'it@clinic.example' } });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body).toMatchObject({ status: 'failed' });
    const [failed] = await ofKind('messages-failed');
    expect(failed).toMatchObject({ severity: 'error', fix: { path: '/notifications' } });
    expect(failed?.count).toBeGreaterThanOrEqual(1);
    expect(failed?.message).toMatch(/failed to send in the last 24 hours; the last failed with: email not sent: .*550/);
  });

  it('shows the data folder disk below its warning level', async () => {
    await t.junction.checkDisk();
    const [low] = await ofKind('disk-low');
    expect(low).toMatchObject({ severity: 'warning', fix: { path: '/about', setting: 'storage.disk.warningMB' } });
    expect(low?.message).toMatch(/^The data folder's disk has \d+ MB free, below the warning level of 1024 MB\.$/);
  });

  it('shows a scheduled backup that failed, and not that backups are off', async () => {
    await expect(t.junction.runJob('backup')).resolves.toBeUndefined();
    const [failed] = await ofKind('backup-failed');
    expect(failed).toMatchObject({ severity: 'error', fix: { path: '/backup', setting: 'backup.folder' } });
    expect(failed?.message).toMatch(/^The last scheduled backup failed: .*ENOTDIR/);
    expect(await ofKind('backups-off')).toEqual([]);
  });
});
