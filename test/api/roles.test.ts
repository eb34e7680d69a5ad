import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import type { ChannelRecord } from '../../service/storage/records.js';

interface Role {
  name: string;
  channels: { _id: string; name: string }[];
  clients: { _id: string; clientID: string }[];
}

function channel(name: string, allow: string[], status: ChannelRecord['status'] = 'enabled'): Omit<ChannelRecord, '_id'> {
  const now = new Date();
  return {
    name, type: 'http', urlPattern: `^/${name}$`, methods: [], status, authType: 'private', allow,
    whitelist: [], matchContentTypes: [], requestBody: true, responseBody: true, autoRetryEnabled: false,
    autoRetryPeriodMinutes: 60, rewriteUrls: false, addAutoRewriteRules: true, rewriteUrlsConfig: [], txViewAcl: [],
    txViewFullAcl: [], txRerunAcl: [], alerts: [], properties: [], routes: [], createdAt: now, updatedAt: now,
  };
}

describe('roles API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  const ids: Record<string, string> = {};

  const allow = async (name: string) => (await t.junction.store.channels.findOne({ name }))?.allow;
  const roles = async (clientID: string) => (await t.junction.store.clients.findOne({ clientID }))?.roles;
  const send = (method: string, path: string, json?: unknown) => t.inject(path, { method, headers: admin, json });

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    for (const [name, list, status] of [
      ['lab-results', ['lab', 'emr']],
      ['admissions', ['emr']],
      ['pharmacy', []],
      ['retired', ['lab'], 'deleted'],
    ] as const) {
      ids[name] = (await t.junction.store.channels.insert(channel(name, [...list], status)))._id;
    }
    for (const [clientID, list] of [
      ['emr', ['his']],
      ['lims', ['lab']],
      ['pharm', []],
    ] as const) {
      const res = await send('POST', '/clients', { clientID, name: clientID, roles: [...list] });
      expect(res.status).toBe(201);
      ids[clientID] = (res.body as { _id: string })._id;
    }
  });
  afterAll(async () => t.destroy());

  it('lists roles built from live channels and clients, without client ids or deleted channels', async () => {
    const res = await send('GET', '/roles');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { name: 'his', channels: [], clients: [{ _id: ids.emr, clientID: 'emr' }] },
      { name: 'lab', channels: [{ _id: ids['lab-results'], name: 'lab-results' }], clients: [{ _id: ids.lims, clientID: 'lims' }] },
    ]);
    const one = await send('GET', '/roles/lab');
    expect(one.status).toBe(200);
    expect((one.body as Role).clients).toEqual([{ _id: ids.lims, clientID: 'lims' }]);
    expect((await send('GET', '/roles/nope')).status).toBe(404);
    expect((await send('GET', '/roles/emr')).status).toBe(404);
  });

  it('creates a role on channels and clients referenced by _id, name or clientID (rules 1 and 2)', async () => {
    const res = await send('POST', '/roles', { name: 'pharmacy-staff', channels: [{ name: 'pharmacy' }, { _id: ids.admissions }], clients: [{ clientID: 'pharm' }] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      name: 'pharmacy-staff',
      channels: [
        { _id: ids.admissions, name: 'admissions' },
        { _id: ids.pharmacy, name: 'pharmacy' },
      ],
      clients: [{ _id: ids.pharm, clientID: 'pharm' }],
    });
    expect(await allow('pharmacy')).toEqual(['pharmacy-staff']);
    expect(await allow('admissions')).toEqual(['emr', 'pharmacy-staff']);
    expect(await roles('pharm')).toEqual(['pharmacy-staff']);
    expect((await send('GET', '/roles/pharmacy-staff')).body).toEqual(res.body);
  });

  it('answers 400 without a name, without any channel or client, or for an unknown reference', async () => {
    const cases: [unknown, string][] = [
      [{ channels: [{ name: 'pharmacy' }] }, 'body.name'],
      [{ name: 'empty' }, 'body'],
      [{ name: 'empty', channels: [], clients: [] }, 'body'],
      [{ name: 'x', channels: [{ name: 'no-such-channel' }] }, 'body.channels.0'],
      [{ name: 'x', channels: [{ _id: ids.retired }] }, 'body.channels.0'],
      [{ name: 'x', clients: [{ clientID: 'pharm' }, { _id: 'missing' }] }, 'body.clients.1'],
      [{ name: 'x', clients: [{}] }, 'body.clients.0'],
      [{ name: 'x', clients: [{ name: 'pharm' }] }, 'body.clients.0.name'],
      [{ name: 'bad/name', clients: [{ clientID: 'pharm' }] }, 'body.name'],
    ];
    for (const [json, path] of cases) {
      const res = await send('POST', '/roles', json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path), JSON.stringify(json)).toContain(path);
    }
    expect(await roles('pharm')).toEqual(['pharmacy-staff']);
  });

  it('answers 409 for an existing role name or a clientID', async () => {
    const existing = await send('POST', '/roles', { name: 'lab', clients: [{ clientID: 'pharm' }] });
    expect(existing.status).toBe(409);
    const clientName = await send('POST', '/roles', { name: 'lims', clients: [{ clientID: 'pharm' }] });
    expect(clientName.status).toBe(409);
    expect(clientName.body).toMatchObject({ error: { code: 'CONFLICT', details: [{ path: 'body.name' }] } });
    expect((await send('PUT', '/roles/lab', { name: 'his' })).status).toBe(409);
    expect((await send('PUT', '/roles/lab', { name: 'emr' })).status).toBe(409);
    expect(await roles('pharm')).toEqual(['pharmacy-staff']);
  });

  it('treats a given array as the complete list and leaves an omitted one alone (rules 3 and 5)', async () => {
    await send('POST', '/roles', { name: 'nurses', channels: [{ name: 'lab-results' }, { name: 'admissions' }], clients: [{ clientID: 'emr' }] });
    const res = await send('PUT', '/roles/nurses', { channels: [{ name: 'pharmacy' }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'nurses', channels: [{ _id: ids.pharmacy, name: 'pharmacy' }], clients: [{ _id: ids.emr, clientID: 'emr' }] });
    expect(await allow('lab-results')).toEqual(['lab', 'emr']);
    expect(await allow('admissions')).toEqual(['emr', 'pharmacy-staff']);
    expect(await roles('emr')).toEqual(['his', 'nurses']);

    const clientsOnly = await send('PUT', '/roles/nurses', { clients: [{ _id: ids.lims }] });
    expect(clientsOnly.body).toMatchObject({ channels: [{ name: 'pharmacy' }], clients: [{ clientID: 'lims' }] });
    expect(await roles('emr')).toEqual(['his']);
  });

  it('deletes a role when both arrays are given empty (rule 4)', async () => {
    await send('POST', '/roles', { name: 'temp', channels: [{ name: 'pharmacy' }], clients: [{ clientID: 'lims' }] });
    const res = await send('PUT', '/roles/temp', { channels: [], clients: [] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'temp', channels: [], clients: [] });
    expect((await send('GET', '/roles/temp')).status).toBe(404);
    expect(await allow('pharmacy')).not.toContain('temp');
    expect(await roles('lims')).not.toContain('temp');
  });

  it('renames a role everywhere it is used (rule 6), but not on deleted channels', async () => {
    const res = await send('PUT', '/roles/lab', { name: 'laboratory' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'laboratory', channels: [{ name: 'lab-results' }], clients: [{ clientID: 'lims' }] });
    expect(await allow('lab-results')).toEqual(['laboratory', 'emr']);
    expect(await roles('lims')).toEqual(['laboratory', 'nurses']);
    expect((await t.junction.store.channels.findById(ids.retired!))?.allow).toEqual(['lab']);
    expect((await send('GET', '/roles/lab')).status).toBe(404);
    expect((await send('PUT', '/roles/lab', { name: 'again' })).status).toBe(404);
  });

  it('deletes a role from every channel and client', async () => {
    const res = await send('DELETE', '/roles/pharmacy-staff');
    expect(res.status).toBe(200);
    expect(await allow('pharmacy')).toEqual(['nurses']);
    expect(await allow('admissions')).toEqual(['emr']);
    expect(await roles('pharm')).toEqual([]);
    expect((await send('DELETE', '/roles/pharmacy-staff')).status).toBe(404);
    expect(((await send('GET', '/roles')).body as Role[]).map((r) => r.name)).toEqual(['his', 'laboratory', 'nurses']);
  });

  it('resolves a channel by name to the live one when a deleted channel has the same name', async () => {
    const live = await send('POST', '/channels', { name: 'retired', urlPattern: '^/retired-again$', routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] });
    expect(live.status, live.text).toBe(201);
    const liveId = (live.body as { _id: string })._id;
    const res = await send('POST', '/roles', { name: 'archive', channels: [{ name: 'retired' }] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'archive', channels: [{ _id: liveId, name: 'retired' }] });
    expect((await t.junction.store.channels.findById(liveId))?.allow).toEqual(['archive']);
    expect((await t.junction.store.channels.findById(ids.retired!))?.allow).toEqual(['lab']);
  });

  it('refuses to give a role to the client whose clientID it is (data stored before that rule)', async () => {
    // Only a client stored before the rule can hold its own clientID as a role; the roles API must not add to it.
    const now = new Date();
    const legacy = await t.junction.store.clients.insert({ clientID: 'legacy', name: 'Legacy', roles: ['legacy'], createdAt: now, updatedAt: now });
    const res = await send('PUT', '/roles/legacy', { clients: [{ clientID: 'pharm' }, { _id: legacy._id }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ path: 'body.clients.1' }] } });
    expect(await roles('pharm')).toEqual([]);
    await t.junction.store.clients.removeById(legacy._id);
  });

  it('refuses non-admins with 403', async () => {
    const nurse = { email: 'nurse@clinic.example', firstname: 'N', surname: 'N', groups: ['nurses'], password: 'nurse-password-1' };
    expect((await send('POST', '/users', nurse)).status).toBe(201);
    const headers = { authorization: basic(nurse.email, nurse.password) };
    for (const [method, path, json] of [
      ['GET', '/roles'],
      ['GET', '/roles/nurses'],
      ['POST', '/roles', { name: 'sneaky', clients: [{ clientID: 'pharm' }] }],
      ['PUT', '/roles/nurses', { name: 'renamed' }],
      ['DELETE', '/roles/nurses'],
    ] as [string, string, unknown?][]) {
      const res = await t.inject(path, { method, headers, json });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect(await roles('lims')).toEqual(['laboratory', 'nurses']);
  });
});
