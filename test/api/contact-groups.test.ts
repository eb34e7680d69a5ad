/**
 * Contact groups (`/groups`): CRUD for admins, what is refused and how (400 naming the field, 403, 404, 409 on a
 * taken name), the 409 naming the channels when a group an alert uses is deleted, and channel alerts that may only
 * name groups that exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';

interface Group {
  _id: string;
  group: string;
  users: { user: string; method: string; maxAlerts: string }[];
}

interface ErrorAnswer {
  error: { code: string; message: string; details: unknown };
}

const ops = { group: 'Lab on-call', users: [{ user: 'ops@clinic.example', method: 'email', maxAlerts: '1 per hour' }, { user: 'nina@clinic.example', method: 'sms' }] };
const primary = { name: 'lab', host: '127.0.0.1', port: 9876, primary: true };
const paths = (res: TestResponse) => ((res.body as ErrorAnswer).error.details as { path: string }[]).map((d) => d.path);

describe('contact groups API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    expect((await t.inject('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    nurse = { authorization: basic(user.email, user.password) };
  });
  afterAll(async () => t.destroy());

  const post = (json: unknown, headers = admin) => t.inject('/groups', { method: 'POST', headers, json });
  const put = (id: string, json: unknown, headers = admin) => t.inject(`/groups/${id}`, { method: 'PUT', headers, json });
  const del = (id: string, headers = admin) => t.inject(`/groups/${id}`, { method: 'DELETE', headers });
  const channel = (name: string, groups: string[]) =>
    t.inject('/channels', { method: 'POST', headers: admin, json: { name, urlPattern: `^/${name}$`, routes: [primary], alerts: [{ status: '5xx', groups }] } });

  it('lets an admin create, list, read, change and delete a group, maxAlerts defaulting to "no max"', async () => {
    const created = await post(ops);
    expect(created.status).toBe(201);
    const group = created.body as Group;
    expect(group).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/) as unknown,
      group: 'Lab on-call',
      users: [{ user: 'ops@clinic.example', method: 'email', maxAlerts: '1 per hour' }, { user: 'nina@clinic.example', method: 'sms', maxAlerts: 'no max' }],
    });
    expect((await t.inject(`/groups/${group._id}`, { headers: admin })).body).toEqual(group);
    expect((await t.inject('/groups', { headers: admin })).body).toEqual([group]);
    expect(await t.junction.store.contactGroups.findById(group._id)).toEqual(group);

    // Omitted fields stay; a given users list replaces the old one whole.
    const renamed = await put(group._id, { group: 'Lab night shift' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...group, group: 'Lab night shift' });
    const replaced = await put(group._id, { users: [{ user: 'lead@clinic.example', method: 'email', maxAlerts: '1 per day' }] });
    expect(replaced.body).toEqual({ _id: group._id, group: 'Lab night shift', users: [{ user: 'lead@clinic.example', method: 'email', maxAlerts: '1 per day' }] });
    // An empty body changes nothing; an _id in the body is ignored (the URL names the group).
    expect((await put(group._id, {})).body).toEqual(replaced.body);
    expect((await put(group._id, { _id: '000000000000000000000000', group: 'Lab nights' })).body).toMatchObject({ _id: group._id, group: 'Lab nights' });

    const removed = await del(group._id);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: 'Contact group Lab nights deleted' });
    expect((await t.inject(`/groups/${group._id}`, { headers: admin })).status).toBe(404);
    expect((await t.inject('/groups', { headers: admin })).body).toEqual([]);
  });

  it('answers 400 naming the field for a missing or blank name, a bad method or maxAlerts, an unknown field and a repeated recipient', async () => {
    const cases: [unknown, string][] = [
      [{ users: [] }, 'body.group'],
      [{ group: '   ' }, 'body.group'],
      [{ group: 'g', users: [{ user: 'a@clinic.example', method: 'fax' }] }, 'body.users.0.method'],
      [{ group: 'g', users: [{ user: 'a@clinic.example', method: 'sms', maxAlerts: '2 per day' }] }, 'body.users.0.maxAlerts'],
      [{ group: 'g', users: [{ method: 'sms' }] }, 'body.users.0.user'],
      [{ group: 'g', users: [{ user: ' ', method: 'sms' }] }, 'body.users.0.user'],
      [{ group: 'g', colour: 'red' }, 'body.colour'],
      [{ group: 'g', users: [{ user: 'a@clinic.example', method: 'sms' }, { user: 'A@clinic.example', method: 'sms', maxAlerts: '1 per day' }] }, 'body.users.1'],
    ];
    for (const [body, path] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(paths(res), JSON.stringify(body)).toContain(path);
    }
    // The same recipient by email and by SMS is two recipients, not a repeat.
    const both = await post({ group: 'Both ways', users: [{ user: 'a@clinic.example', method: 'sms' }, { user: 'a@clinic.example', method: 'email' }] });
    expect(both.status).toBe(201);
    const id = (both.body as Group)._id;
    expect(paths(await put(id, { group: '' }))).toContain('body.group');
    expect(paths(await put(id, { users: [{ user: 'b@clinic.example', method: 'email' }, { user: 'b@clinic.example', method: 'email' }] }))).toContain('body.users.1');
    expect((await t.inject(`/groups/${id}`, { headers: admin })).body).toMatchObject({ group: 'Both ways' });
    expect((await del(id)).status).toBe(200);
  });

  it('answers 409 when the name is taken, on create and on rename, trimmed names included', async () => {
    const first = (await post({ group: 'Pharmacy' })).body as Group;
    const second = (await post({ group: 'Radiology' })).body as Group;
    expect(first.users).toEqual([]);
    const clash = await post({ group: ' Pharmacy ' });
    expect(clash.status).toBe(409);
    expect((clash.body as ErrorAnswer).error).toMatchObject({ code: 'CONFLICT', details: [{ path: 'body.group' }] });
    expect((await put(second._id, { group: 'Pharmacy' })).status).toBe(409);
    expect((await t.inject(`/groups/${second._id}`, { headers: admin })).body).toMatchObject({ group: 'Radiology' });
    // Saving a group under its own name is no clash.
    expect((await put(first._id, { group: 'Pharmacy' })).status).toBe(200);
    await del(first._id);
    await del(second._id);
  });

  it('answers 404 for an unknown id on read, change and delete', async () => {
    for (const id of ['000000000000000000000000', 'not-an-id']) {
      expect((await t.inject(`/groups/${id}`, { headers: admin })).status).toBe(404);
      expect((await put(id, { group: 'x' })).status).toBe(404);
      expect((await del(id)).status).toBe(404);
    }
    expect((await t.inject('/groups', { headers: admin })).body).toEqual([]);
  });

  it('refuses every route to users who are not admins (403) and to callers who are not signed in (401)', async () => {
    const group = (await post({ group: 'Admins only' })).body as Group;
    const attempts = [
      t.inject('/groups', { headers: nurse }),
      t.inject(`/groups/${group._id}`, { headers: nurse }),
      post({ group: 'Mine' }, nurse),
      put(group._id, { group: 'Mine' }, nurse),
      put('000000000000000000000000', {}, nurse),
      del(group._id, nurse),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect((res.body as ErrorAnswer).error.message).toBe('Only admins can view or change contact groups');
    }
    expect((await t.inject('/groups')).status).toBe(401);
    expect((await t.inject(`/groups/${group._id}`, { headers: admin })).body).toEqual(group);
    expect((await t.inject('/groups', { headers: admin })).body).toHaveLength(1);
    await del(group._id);
  });

  it('refuses to delete a group that channel alerts use, with 409 naming the channels, until they let go of it', async () => {
    const group = (await post({ group: 'Ward 4' })).body as Group;
    const spare = (await post({ group: 'Spare' })).body as Group;
    const icu = (await channel('ICU', [group._id])).body as { _id: string };
    const ward = (await channel('Ward', [spare._id, group._id])).body as { _id: string };

    const refused = await del(group._id);
    expect(refused.status).toBe(409);
    const error = (refused.body as ErrorAnswer).error;
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe('Contact group "Ward 4" is used by the alerts of channels "ICU", "Ward"; remove it from their alerts first');
    expect(error.details).toEqual({ channels: [{ _id: icu._id, name: 'ICU', status: 'enabled' }, { _id: ward._id, name: 'Ward', status: 'enabled' }] });
    expect(await t.junction.store.contactGroups.findById(group._id)).not.toBeNull();

    // A channel kept as deleted (it has transactions) still holds it: restoring the channel would bring the alert back.
    await t.junction.store.channels.updateById(icu._id, { set: { status: 'deleted' } });
    const dropGroup = (id: string) => t.inject(`/channels/${id}`, { method: 'PUT', headers: admin, json: { alerts: [{ status: '5xx', groups: [spare._id] }] } });
    expect((await dropGroup(ward._id)).status).toBe(200);
    const kept = await del(group._id);
    expect(kept.status).toBe(409);
    expect((kept.body as ErrorAnswer).error.message).toBe('Contact group "Ward 4" is used by the alerts of channel "ICU" (deleted); remove it from their alerts first');
    expect((kept.body as ErrorAnswer).error.details).toEqual({ channels: [{ _id: icu._id, name: 'ICU', status: 'deleted' }] });
    expect((await dropGroup(icu._id)).status).toBe(200);
    expect((await del(group._id)).status).toBe(200);
    // Once deleted, no new alert can name it.
    expect(paths(await channel('After', [group._id]))).toEqual(['body.alerts.0.groups.0']);
  });

  it('refuses a channel alert naming a group that does not exist (400 naming it), but keeps ids the channel already had', async () => {
    const group = (await post({ group: 'Night desk' })).body as Group;
    const unknown = '0123456789abcdef01234567';
    const refused = await channel('Ghost', [group._id, unknown]);
    expect(refused.status).toBe(400);
    expect(paths(refused)).toEqual(['body.alerts.0.groups.1']);
    expect((refused.body as ErrorAnswer).error.message).toContain(unknown);

    const created = await channel('Desk', [group._id]);
    expect(created.status).toBe(201);
    const id = (created.body as { _id: string })._id;
    const update = await t.inject(`/channels/${id}`, { method: 'PUT', headers: admin, json: { alerts: [{ status: '4xx', groups: [group._id] }, { status: '5xx', groups: [unknown] }] } });
    expect(paths(update)).toEqual(['body.alerts.1.groups.0']);

    // A channel stored with an id that names no group (written before groups were checked) can still be saved as fetched.
    await t.junction.store.channels.updateById(id, { set: { alerts: [{ condition: 'status', status: '5xx', groups: [unknown], users: [] }] } });
    const fetched = (await t.inject(`/channels/${id}`, { headers: admin })).body;
    expect((await t.inject(`/channels/${id}`, { method: 'PUT', headers: admin, json: fetched })).status).toBe(200);
  });
});
