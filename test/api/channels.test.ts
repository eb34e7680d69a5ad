import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, ROOT_EMAIL, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { PASSWORD_MASK } from '../../service/domain/util/password-mask.js';

interface Channel {
  _id: string;
  name: string;
  routes: { name: string; password?: string; primary: boolean; status: string }[];
  [key: string]: unknown;
}

const primary = { name: 'fhir-server', host: '127.0.0.1', port: 8081, primary: true, username: 'svc', password: 'route-secret-1' };
const secondary = { name: 'archive', host: '127.0.0.1', port: 8082, path: '/archive' };

function payload(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, urlPattern: '^/fhir/.*$', routes: [primary, secondary], txViewAcl: ['nurses'], ...extra };
}

describe('channels API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };

  const create = (json: unknown) => t.inject('/channels', { method: 'POST', headers: admin, json });
  const put = (id: string, json: unknown) => t.inject(`/channels/${id}`, { method: 'PUT', headers: admin, json });
  const errorPaths = (res: TestResponse) => (res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path);

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    const made = await t.inject('/users', { method: 'POST', headers: admin, json: user });
    if (made.status !== 201) throw new Error(made.text);
    nurse = { authorization: basic(user.email, user.password) };
  });
  afterAll(async () => t.destroy());

  it('lets an admin create, read, update and delete a channel, with OpenHIM defaults filled in', async () => {
    const created = await create(payload('FHIR', { methods: ['get', 'POST'] }));
    expect(created.status).toBe(201);
    const channel = created.body as Channel;
    expect(channel).toMatchObject({
      name: 'FHIR',
      type: 'http',
      status: 'enabled',
      authType: 'private',
      methods: ['GET', 'POST'],
      requestBody: true,
      responseBody: true,
      autoRetryEnabled: false,
      autoRetryPeriodMinutes: 60,
      updatedBy: { name: ROOT_EMAIL },
    });
    expect(channel.routes[1]).toMatchObject({ name: 'archive', type: 'http', primary: false, secured: false, forwardAuthHeader: false, status: 'enabled' });
    expect(typeof channel.createdAt).toBe('string');

    const list = await t.inject('/channels', { headers: admin });
    expect((list.body as Channel[]).map((c) => c.name)).toEqual(['FHIR']);
    expect((await t.inject(`/channels/${channel._id}`, { headers: admin })).body).toMatchObject({ name: 'FHIR', txViewAcl: ['nurses'] });

    const updated = await put(channel._id, { description: 'FHIR traffic', priority: 2, timeout: 5000 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'FHIR', description: 'FHIR traffic', priority: 2, timeout: 5000, methods: ['GET', 'POST'] });
    // null removes a setting.
    const cleared = await put(channel._id, { priority: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('priority');
    expect((await t.inject(`/channels/${channel._id}`, { headers: admin })).body).not.toHaveProperty('priority');

    const removed = await t.inject(`/channels/${channel._id}`, { method: 'DELETE', headers: admin });
    expect(removed.status).toBe(200);
    expect((await t.inject(`/channels/${channel._id}`, { headers: admin })).status).toBe(404);
    expect((await put(channel._id, { description: 'x' })).status).toBe(404);
    expect((await t.inject(`/channels/${channel._id}`, { method: 'DELETE', headers: admin })).status).toBe(404);
    expect((await t.inject('/channels/not-an-id', { headers: admin })).status).toBe(404);
  });

  it('fills tcpHost for tcp channels and accepts mllp routes', async () => {
    const res = await create({
      name: 'HL7',
      type: 'tcp',
      tcpPort: 7000,
      routes: [{ name: 'lab', host: '127.0.0.1', port: 2575, type: 'mllp', primary: true }],
      properties: [{ site: 'north' }],
      alerts: [{ status: '5xx', failureRate: 10, users: [{ user: 'ops@clinic.example', method: 'email', maxAlerts: '1 per hour' }] }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'tcp',
      tcpHost: '0.0.0.0',
      tcpPort: 7000,
      urlPattern: '',
      properties: [{ site: 'north' }],
      alerts: [{ condition: 'status', status: '5xx', failureRate: 10, groups: [], users: [{ user: 'ops@clinic.example' }] }],
    });
    expect(errorPaths(await create({ name: 'Props', type: 'tcp', tcpPort: 7001, routes: [primary], properties: [{ a: '1', b: '2' }] }))).toContain('body.properties.0');
    // A channel fetched with GET can be sent back as it is.
    const fetched = await t.inject(`/channels/${(res.body as Channel)._id}`, { headers: admin });
    expect((await put((res.body as Channel)._id, fetched.body)).status).toBe(200);
  });

  it('lets only admins change channels, and shows others only channels their groups may view', async () => {
    const visible = (await create(payload('Visible'))).body as Channel;
    const hidden = (await create(payload('Hidden', { txViewAcl: ['lab'] }))).body as Channel;
    const viaRerun = (await create(payload('Rerun', { txViewAcl: [], txRerunAcl: ['nurses'] }))).body as Channel;

    expect((await t.inject('/channels', { method: 'POST', headers: nurse, json: payload('Mine') })).status).toBe(403);
    expect((await t.inject(`/channels/${visible._id}`, { method: 'PUT', headers: nurse, json: { description: 'x' } })).status).toBe(403);
    const del = await t.inject(`/channels/${visible._id}`, { method: 'DELETE', headers: nurse });
    expect(del.status).toBe(403);
    expect(del.body).toMatchObject({ error: { code: 'FORBIDDEN' } });

    const list = await t.inject('/channels', { headers: nurse });
    expect(list.status).toBe(200);
    expect((list.body as Channel[]).map((c) => c.name).sort()).toEqual(['Rerun', 'Visible']);
    expect((await t.inject(`/channels/${visible._id}`, { headers: nurse })).status).toBe(200);
    expect((await t.inject(`/channels/${viaRerun._id}`, { headers: nurse })).status).toBe(200);
    expect((await t.inject(`/channels/${hidden._id}`, { headers: nurse })).status).toBe(403);
    expect((await t.inject('/channels/unknown', { headers: nurse })).status).toBe(403);
    expect((await t.inject(`/channels/${visible._id}`, { headers: admin })).body).toMatchObject({ name: 'Visible' });
  });

  it('refuses each bad payload with 400 naming the field, and stores nothing', async () => {
    const only = (route: Record<string, unknown>) => ({ routes: [{ ...primary, ...route }] });
    const cases: [string, Record<string, unknown>, string][] = [
      ['no primary', only({ primary: false }), 'body.routes'],
      ['two primaries', { routes: [primary, { ...secondary, primary: true }] }, 'body.routes'],
      ['no routes', { routes: [] }, 'body.routes'],
      ['bad urlPattern', { urlPattern: '^/fhir/(' }, 'body.urlPattern'],
      ['bad matchContentRegex', { matchContentRegex: '[' }, 'body.matchContentRegex'],
      ['path and pathTransform', only({ path: '/a', pathTransform: 's/a/b/' }), 'body.routes.0.pathTransform'],
      ['bad pathTransform', only({ pathTransform: 'y/a/b' }), 'body.routes.0.pathTransform'],
      ['priority 0', { priority: 0 }, 'body.priority'],
      ['timeout too long', { timeout: 3_600_001 }, 'body.timeout'],
      ['timeout 0', { timeout: 0 }, 'body.timeout'],
      ['repeated method', { methods: ['GET', 'get'] }, 'body.methods.1'],
      ['unknown field', { colour: 'blue' }, 'body.colour'],
      ['wrong type', { requestBody: 'yes' }, 'body.requestBody'],
      ['status deleted', { status: 'deleted' }, 'body.status'],
      ['xpath without value', { matchContentXpath: '//id' }, 'body.matchContentValue'],
      ['tcp without port', { type: 'tcp' }, 'body.tcpPort'],
      ['route port out of range', only({ port: 70000 }), 'body.routes.0.port'],
      ['mask as a new password', only({ password: PASSWORD_MASK }), 'body.routes.0.password'],
    ];
    for (const [label, change, field] of cases) {
      const res = await create(payload(`Bad ${label}`, change));
      expect(res.status, label).toBe(400);
      expect(res.body, label).toMatchObject({ error: { code: 'VALIDATION_FAILED', message: expect.stringContaining(field) as string } });
      expect(errorPaths(res), label).toContain(field);
    }
    const names = ((await t.inject('/channels', { headers: admin })).body as Channel[]).map((c) => c.name);
    expect(names.filter((n) => n.startsWith('Bad '))).toEqual([]);
  });

  it('allows a second primary route when it is disabled', async () => {
    const res = await create(payload('Standby', { routes: [primary, { ...secondary, primary: true, status: 'disabled' }] }));
    expect(res.status).toBe(201);
  });

  it('masks route passwords in every answer and keeps the stored one when the mask comes back', async () => {
    const created = await create(payload('Masked'));
    const channel = created.body as Channel;
    expect(channel.routes[0]?.password).toBe(PASSWORD_MASK);
    expect(channel.routes[1]).not.toHaveProperty('password');
    for (const res of [created, await t.inject('/channels', { headers: admin }), await t.inject(`/channels/${channel._id}`, { headers: admin })]) {
      expect(res.text).not.toContain('route-secret-1');
    }

    // The console sends the routes back as it got them, mask included.
    const routes = channel.routes.map((r) => (r.name === 'archive' ? { ...r, port: 9090 } : r));
    const updated = await put(channel._id, { routes });
    expect(updated.status).toBe(200);
    expect((updated.body as Channel).routes[1]).toMatchObject({ port: 9090 });
    expect(updated.text).not.toContain('route-secret-1');
    const stored = await t.junction.store.channels.findById(channel._id);
    expect(stored?.routes[0]?.password).toBe('route-secret-1');

    // A new password replaces it.
    const changed = await put(channel._id, { routes: [{ ...primary, password: 'route-secret-2' }, secondary] });
    expect(changed.status).toBe(200);
    expect((changed.body as Channel).routes[0]?.password).toBe(PASSWORD_MASK);
    expect((await t.junction.store.channels.findById(channel._id))?.routes[0]?.password).toBe('route-secret-2');
  });

  it('refuses an update that would break the rules and leaves the channel unchanged', async () => {
    const channel = (await create(payload('Stable'))).body as Channel;
    const before = await t.inject(`/channels/${channel._id}`, { headers: admin });

    const noPrimary = await put(channel._id, { routes: [{ ...primary, primary: false }, secondary] });
    expect(noPrimary.status).toBe(400);
    expect(errorPaths(noPrimary)).toEqual(['body.routes']);
    // The merge is checked whole: a pathTransform on the route that already has a path is refused.
    const both = await put(channel._id, { routes: [primary, { ...secondary, pathTransform: 's/a/b/' }] });
    expect(errorPaths(both)).toEqual(['body.routes.1.pathTransform']);
    const tcp = await put(channel._id, { type: 'tcp' });
    expect(errorPaths(tcp)).toEqual(['body.tcpPort']);
    expect(errorPaths(await put(channel._id, { status: 'deleted' }))).toContain('body.status');

    const after = await t.inject(`/channels/${channel._id}`, { headers: admin });
    expect(after.body).toEqual(before.body);
    // A foreign _id is ignored (OpenHIM's console sends whole documents back): the channel keeps its id.
    const foreign = await put(channel._id, { _id: 'other' });
    expect(foreign.status).toBe(200);
    expect(foreign.body).toMatchObject({ _id: channel._id });
  });

  it('answers 409 naming body.name for a duplicate name, on create and on rename', async () => {
    const first = (await create(payload('Unique'))).body as Channel;
    const dup = await create(payload('Unique'));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: { code: 'CONFLICT', details: [{ path: 'body.name' }] } });
    const other = (await create(payload('Other'))).body as Channel;
    const rename = await put(other._id, { name: 'Unique' });
    expect(rename.status).toBe(409);
    expect(errorPaths(rename)).toEqual(['body.name']);
    expect((await t.inject(`/channels/${first._id}`, { headers: admin })).body).toMatchObject({ name: 'Unique' });
  });

  it('lists channels kept as deleted only when asked with includeDeleted=true', async () => {
    const kept = (await create({ name: 'Retired lab', urlPattern: '^/retired$', authType: 'public', routes: [{ name: 'gone', host: '127.0.0.1', port: 9, primary: true }] }))
      .body as Channel;
    // A transaction through the channel makes DELETE keep it, marked deleted.
    const sent = await fetch(`${t.httpUrl}/retired`);
    await sent.arrayBuffer();
    await completedTransaction(t, sent.headers.get('x-openhim-transactionid'));
    expect((await t.inject(`/channels/${kept._id}`, { method: 'DELETE', headers: admin })).status).toBe(200);

    const names = (res: TestResponse) => (res.body as Channel[]).map((c) => c.name);
    expect(names(await t.inject('/channels', { headers: admin }))).not.toContain('Retired lab');
    const all = await t.inject('/channels?includeDeleted=true', { headers: admin });
    expect(all.status).toBe(200);
    expect((all.body as Channel[]).find((c) => c.name === 'Retired lab')).toMatchObject({ _id: kept._id, status: 'deleted' });
    expect(names(await t.inject('/channels?includeDeleted=false', { headers: admin }))).not.toContain('Retired lab');
    // Users see deleted channels only where their groups are named, as for live ones.
    expect(names(await t.inject('/channels?includeDeleted=true', { headers: nurse }))).not.toContain('Retired lab');
    expect(errorPaths(await t.inject('/channels?includeDeleted=maybe', { headers: admin }))).toEqual(['querystring.includeDeleted']);
  });

  describe('a channel kept as deleted', () => {
    const publicChannel = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
      name,
      urlPattern: `^${path}$`,
      authType: 'public',
      routes: [{ name: 'gone', host: '127.0.0.1', port: 9, primary: true }],
      ...extra,
    });

    /** Sends one request on the HTTP port and returns the id of the channel its stored transaction names. */
    async function channelOfRequest(path: string): Promise<string | undefined> {
      const sent = await fetch(`${t.httpUrl}${path}`);
      await sent.arrayBuffer();
      return (await completedTransaction(t, sent.headers.get('x-openhim-transactionid'))).channelID;
    }

    /** Creates a public channel, routes one transaction through it and deletes it, so it is kept as deleted. */
    async function keptDeleted(name: string, path: string): Promise<Channel> {
      const created = await create(publicChannel(name, path));
      expect(created.status, created.text).toBe(201);
      const channel = created.body as Channel;
      expect(await channelOfRequest(path)).toBe(channel._id);
      expect((await t.inject(`/channels/${channel._id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
      return channel;
    }

    it('is shown by GET /channels/:id with status deleted, and stays deleted through an edit', async () => {
      const kept = await keptDeleted('Old referrals', '/old-referrals');
      const shown = await t.inject(`/channels/${kept._id}`, { headers: admin });
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ _id: kept._id, name: 'Old referrals', status: 'deleted' });
      const edited = await put(kept._id, { description: 'kept for its transactions' });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ status: 'deleted', description: 'kept for its transactions' });
      // It is never matched: the request finds no channel.
      const sent = await fetch(`${t.httpUrl}/old-referrals`);
      await sent.arrayBuffer();
      expect(sent.status).toBe(404);
      // DELETE again keeps it (its transaction still refers to it) and answers as before.
      expect((await t.inject(`/channels/${kept._id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
      expect((await t.inject(`/channels/${kept._id}`, { headers: admin })).body).toMatchObject({ status: 'deleted' });
    });

    it('is restored by PUT with status enabled or disabled, as in OpenHIM', async () => {
      const first = await keptDeleted('Old imaging', '/old-imaging');
      const restored = await put(first._id, { status: 'enabled' });
      expect(restored.status, restored.text).toBe(200);
      expect(restored.body).toMatchObject({ _id: first._id, name: 'Old imaging', status: 'enabled' });
      expect((await t.inject('/channels', { headers: admin })).body as Channel[]).toContainEqual(expect.objectContaining({ _id: first._id }));
      // Matched again once restored.
      expect(await channelOfRequest('/old-imaging')).toBe(first._id);

      const second = await keptDeleted('Old dispensing', '/old-dispensing');
      const disabled = await put(second._id, { status: 'disabled' });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ status: 'disabled' });
    });

    it('frees its name: a new channel may take it, and the live one is the one matched', async () => {
      const old = await keptDeleted('Lab feed', '/lab-feed');
      const reused = await create(publicChannel('Lab feed', '/lab-feed'));
      expect(reused.status, reused.text).toBe(201);
      const live = reused.body as Channel;
      expect(await channelOfRequest('/lab-feed')).toBe(live._id);
      // A rename onto the name is free too, while the name's only other holder is deleted.
      const renamed = (await create(publicChannel('Lab feed 2', '/lab-feed-2'))).body as Channel;
      expect((await put(live._id, { name: 'Lab feed (live)' })).status).toBe(200);
      expect((await put(renamed._id, { name: 'Lab feed' })).status).toBe(200);
      expect((await t.inject(`/channels/${old._id}`, { headers: admin })).body).toMatchObject({ name: 'Lab feed', status: 'deleted' });
    });

    it('answers 409 naming the clash when its name is taken by a live channel, and restores under a new name in the same PUT', async () => {
      const old = await keptDeleted('Pharmacy feed', '/pharmacy-old');
      const taker = (await create(publicChannel('Pharmacy feed', '/pharmacy-new'))).body as Channel;
      const clash = await put(old._id, { status: 'enabled' });
      expect(clash.status).toBe(409);
      expect(errorPaths(clash)).toEqual(['body.name']);
      const message = (clash.body as { error: { message: string } }).error.message;
      expect(message).toContain(taker._id);
      expect(message).toMatch(/another name in the same request/);
      expect((await t.inject(`/channels/${old._id}`, { headers: admin })).body).toMatchObject({ status: 'deleted' });

      const restored = await put(old._id, { status: 'enabled', name: 'Pharmacy feed (old)' });
      expect(restored.status, restored.text).toBe(200);
      expect(restored.body).toMatchObject({ name: 'Pharmacy feed (old)', status: 'enabled' });
      expect((await t.inject(`/channels/${taker._id}`, { headers: admin })).body).toMatchObject({ name: 'Pharmacy feed', status: 'enabled' });
    });

    it('lets only one of two simultaneous writes take a free name', async () => {
      const old = await keptDeleted('Contested', '/contested');
      const answers = await Promise.all([create(publicChannel('Contested', '/contested-a')), create(publicChannel('Contested', '/contested-b')), put(old._id, { status: 'enabled' })]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
      const live = ((await t.inject('/channels', { headers: admin })).body as Channel[]).filter((c) => c.name === 'Contested');
      expect(live).toHaveLength(1);
    });

    it('cannot be triggered until it is restored', async () => {
      const created = await create({ name: 'Old poll', type: 'polling', urlPattern: '^/old-poll$', pollingSchedule: '1 days', routes: [{ name: 'p', host: '127.0.0.1', port: 9, primary: true }] });
      const poll = created.body as Channel;
      const first = await t.inject(`/channels/${poll._id}/trigger`, { method: 'POST', headers: { ...admin, 'x-requested-with': 'test' } });
      expect(first.status, first.text).toBe(200);
      await completedTransaction(t, (first.body as { transactionId: string }).transactionId);
      expect((await t.inject(`/channels/${poll._id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
      const refused = await t.inject(`/channels/${poll._id}/trigger`, { method: 'POST', headers: { ...admin, 'x-requested-with': 'test' } });
      expect(refused.status).toBe(409);
      expect((refused.body as { error: { message: string } }).error.message).toMatch(/is deleted; restore it/);
    });

    it('does not hold its name against a mediator default channel', async () => {
      await keptDeleted('Stock orders', '/stock-orders');
      const mediator = {
        urn: 'urn:mediator:stock',
        version: '1.0.0',
        name: 'Stock mediator',
        endpoints: [{ name: 'stock', host: '127.0.0.1', port: 9 }],
        defaultChannelConfig: [{ name: 'Stock orders', urlPattern: '^/stock-orders$', authType: 'public', routes: [{ name: 'stock', host: '127.0.0.1', port: 9, primary: true }] }],
      };
      expect((await t.inject('/mediators', { method: 'POST', headers: admin, json: mediator })).status).toBe(201);
      const installed = await t.inject('/mediators/urn%3Amediator%3Astock/channels', { method: 'POST', headers: admin, json: ['Stock orders'] });
      expect(installed.status, installed.text).toBe(201);
      const [channel] = installed.body as Channel[];
      expect(channel).toMatchObject({ name: 'Stock orders', status: 'enabled' });
      expect(await channelOfRequest('/stock-orders')).toBe(channel?._id);
      // The live one now holds the name: a second install is refused.
      const again = await t.inject('/mediators/urn%3Amediator%3Astock/channels', { method: 'POST', headers: admin, json: ['Stock orders'] });
      expect(again.status).toBe(409);
    });
  });
});
