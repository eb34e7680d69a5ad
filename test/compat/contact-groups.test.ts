/**
 * OpenHIM compatibility: `/groups` called as OpenHIM's contact group integration tests and its console call them
 * (their payloads, users named by any text, a fetched group saved back with `$update`), with OpenHIM's status codes.
 * Where Junction answers differently (JSON instead of text, 404 for an unknown id on PUT and DELETE, a repeated
 * recipient refused, the 409 in the one error shape), the test says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSession, NEW_ROOT_PASSWORD, ROOT_EMAIL, startCompat, without } from './openhim-caller.js';
import type { Caller, CompatJunction } from './openhim-caller.js';

interface Group {
  _id: string;
  group: string;
  users: { user: string; method: string; maxAlerts: string; _id?: string }[];
}

const groupData = {
  group: 'Group 1',
  users: [
    { user: 'User 1', method: 'sms', maxAlerts: 'no max' },
    { user: 'User 2', method: 'email', maxAlerts: '1 per hour' },
    { user: 'User 3', method: 'sms', maxAlerts: '1 per day' },
    { user: 'User 4', method: 'email', maxAlerts: 'no max' },
    { user: 'User 5', method: 'sms', maxAlerts: '1 per hour' },
    { user: 'User 6', method: 'email', maxAlerts: '1 per day' },
  ],
};

describe('OpenHIM compatibility: contact groups', () => {
  let c: CompatJunction;
  let nonRoot: Caller;
  let ids: string[] = [];

  beforeAll(async () => {
    c = await startCompat();
    nonRoot = await c.user('nonroot@jembi.org', ['HISP']);
  });
  afterAll(async () => {
    await c.destroy();
  });

  const byName = async (name: string): Promise<Group | undefined> => ((await c.root.get('/groups')).body as Group[]).find((g) => g.group === name);
  const removeAll = async () => {
    for (const g of (await c.root.get('/groups')).body as Group[]) await c.root.delete(`/groups/${g._id}`);
  };

  it('POST /groups answers 201 and stores the group with its users in order; a non-admin gets 403', async () => {
    const res = await c.root.post('/groups', groupData);
    expect(res.status).toBe(201);
    const stored = await byName('Group 1');
    expect(stored?.users).toHaveLength(6);
    expect(stored?.users[0]?.user).toBe('User 1');
    expect(stored?.users.map((u) => [u.method, u.maxAlerts])).toEqual(groupData.users.map((u) => [u.method, u.maxAlerts]));
    expect((await nonRoot.post('/groups', groupData)).status).toBe(403);
    await removeAll();
  });

  it('GET /groups/:id answers the group; 404 for an unknown id; 403 for a non-admin', async () => {
    const id = ((await c.root.post('/groups', groupData)).body as Group)._id;
    const res = await c.root.get(`/groups/${id}`);
    expect(res.status).toBe(200);
    const group = res.body as Group;
    expect(group.group).toBe('Group 1');
    expect(group.users.map((u) => u.user)).toEqual(['User 1', 'User 2', 'User 3', 'User 4', 'User 5', 'User 6']);
    expect((await c.root.get('/groups/000000000000000000000000')).status).toBe(404);
    expect((await nonRoot.get(`/groups/${id}`)).status).toBe(403);
    await removeAll();
  });

  it('GET /groups answers every group; 403 for a non-admin', async () => {
    const others = [
      { group: 'Group 2222', users: [{ user: 'User 2', method: 'email', maxAlerts: '1 per hour' }] },
      { group: 'Group 33333333', users: [{ user: 'User 4', method: 'sms', maxAlerts: 'no max' }, { user: 'User 2', method: 'sms', maxAlerts: '1 per day' }] },
      { group: 'Group 444444444444', users: [{ user: 'User 3', method: 'sms', maxAlerts: '1 per day' }, { user: 'User 2', method: 'email', maxAlerts: '1 per hour' }] },
    ];
    for (const data of [groupData, ...others]) expect((await c.root.post('/groups', data)).status).toBe(201);
    const list = await c.root.get('/groups');
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(4);
    expect((await nonRoot.get('/groups')).status).toBe(403);
    // OpenHIM stores a user listed twice with the same method (its fixture "Group 2222" does); Junction refuses it, as
    // that user would get every alert twice.
    const twice = await c.root.post('/groups', { group: 'Twice', users: [others[0]!.users[0], others[0]!.users[0]] });
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('body.users.1');
    ids = (list.body as Group[]).map((g) => g._id);
    await removeAll();
  });

  it('PUT /groups/:id answers 200 and replaces the name and users; a non-admin gets 403, even for an unknown id', async () => {
    const id = ((await c.root.post('/groups', groupData)).body as Group)._id;
    const updates = { group: 'Group New Name', users: [{ user: 'User 11111', method: 'sms', maxAlerts: 'no max' }, { user: 'User 222222', method: 'email', maxAlerts: '1 per hour' }] };
    expect((await c.root.put(`/groups/${id}`, updates)).status).toBe(200);
    const group = (await c.root.get(`/groups/${id}`)).body as Group;
    expect(group.group).toBe('Group New Name');
    expect(group.users.map((u) => [u.user, u.method])).toEqual([['User 11111', 'sms'], ['User 222222', 'email']]);
    expect((await nonRoot.put('/groups/000000000000000000000000', {})).status).toBe(403);
    // OpenHIM answers 200 for an unknown id and changes nothing; Junction says it is not there.
    expect((await c.root.put('/groups/000000000000000000000000', {})).status).toBe(404);
    await removeAll();
  });

  it('DELETE /groups/:id answers 200 and removes it; 403 for a non-admin', async () => {
    const id = ((await c.root.post('/groups', groupData)).body as Group)._id;
    expect((await nonRoot.delete(`/groups/${id}`)).status).toBe(403);
    const res = await c.root.delete(`/groups/${id}`);
    expect(res.status).toBe(200);
    expect(await byName('Group 1')).toBeUndefined();
    expect((await c.root.get('/groups')).body).toEqual([]);
    // Ids of groups removed earlier in this file stay unknown.
    for (const gone of ids) expect((await c.root.delete(`/groups/${gone}`)).status).toBe(404);
  });

  it('DELETE of a group that a channel alert names answers 409 listing the channels, and keeps the group', async () => {
    const id = ((await c.root.post('/groups', { ...groupData, group: 'Group 2' })).body as Group)._id;
    const channel = {
      name: 'TestChannel1XXX',
      urlPattern: 'test/sample',
      allow: ['PoC', 'Test1', 'Test2'],
      routes: [{ name: 'test route', host: 'localhost', port: 9876, primary: true }],
      txViewAcl: ['aGroup'],
      alerts: [{ status: '300', failureRate: 13, users: [], groups: [id] }],
    };
    const created = await c.root.post('/channels', channel);
    expect(created.status).toBe(201);
    const before = ((await c.root.get('/groups')).body as Group[]).length;
    const res = await c.root.delete(`/groups/${id}`);
    expect(res.status).toBe(409);
    // OpenHIM's body is the array of channel documents, whose names its console lists; Junction keeps its one error
    // shape, naming the channels in the message and listing them (_id, name, status) in details.channels.
    const error = (res.body as { error: { message: string; details: { channels: { _id: string; name: string }[] } } }).error;
    expect(error.message).toContain('"TestChannel1XXX"');
    expect(error.details.channels.map((ch) => ch.name)).toEqual(['TestChannel1XXX']);
    expect(error.details.channels[0]?._id).toBe((created.body as { _id: string })._id);
    expect(((await c.root.get('/groups')).body as Group[]).length).toBe(before);
  });

  it("the console's round trip: a group fetched with GET and saved back with PUT is accepted and unchanged", async () => {
    const session = await consoleSession(c, ROOT_EMAIL, NEW_ROOT_PASSWORD);
    expect((await session.post('/groups', { group: 'Console group', users: [{ user: ROOT_EMAIL, method: 'email', maxAlerts: '1 per day' }] })).status).toBe(201);
    const fetched = (await byName('Console group'))!;
    const res = await session.put(`/groups/${fetched._id}`, fetched);
    expect(res.status).toBe(200);
    expect((await session.get(`/groups/${fetched._id}`)).body).toEqual(fetched);
    // A group as OpenHIM answers it (Mongo's __v, an _id on each user) is accepted too; those fields are not kept.
    const fromOpenHIM = { ...fetched, __v: 0, users: fetched.users.map((u) => ({ ...u, _id: '5b4f6c0e8d2a3e0012345678' })) };
    expect((await session.put(`/groups/${fetched._id}`, fromOpenHIM)).status).toBe(200);
    expect(without((await session.get(`/groups/${fetched._id}`)).body as Record<string, unknown>, '_id')).toEqual(without(fetched as unknown as Record<string, unknown>, '_id'));
  });
});
