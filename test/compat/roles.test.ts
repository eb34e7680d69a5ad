/**
 * OpenHIM compatibility: `/roles` as OpenHIM's role API (the view over channels' `allow` and clients' `roles`) and its
 * console call it: channels and clients referenced by `_id` or by name, OpenHIM's status codes, and the round trip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompat } from './openhim-caller.js';
import type { Caller, CompatJunction } from './openhim-caller.js';

interface Role {
  name: string;
  channels: { _id: string; name: string }[];
  clients: { _id: string; clientID: string }[];
}

describe('OpenHIM compatibility: roles', () => {
  let c: CompatJunction;
  let viewer: Caller;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    c = await startCompat();
    viewer = await c.user('viewer@clinic.example', ['viewers']);
    for (const name of ['TestChannel1', 'TestChannel2']) {
      const res = await c.root.post('/channels', { name, urlPattern: `^/${name}$`, allow: ['role1'], routes: [{ name: 'r', host: 'localhost', port: 9876, primary: true }] });
      expect(res.status).toBe(201);
      ids[name] = (res.body as { _id: string })._id;
    }
    for (const clientID of ['client1', 'client2']) {
      const res = await c.root.post('/clients', { clientID, name: clientID, roles: ['role1'], password: 'client-password-1' });
      expect(res.status).toBe(201);
      ids[clientID] = (res.body as { _id: string })._id;
    }
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('GET /roles and /roles/:name answer {name, channels: [{_id, name}], clients: [{_id, clientID}]}; 404 for an unknown role', async () => {
    const list = await c.root.get('/roles');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        name: 'role1',
        channels: expect.arrayContaining([{ _id: ids.TestChannel1, name: 'TestChannel1' }, { _id: ids.TestChannel2, name: 'TestChannel2' }]) as unknown,
        clients: expect.arrayContaining([{ _id: ids.client1, clientID: 'client1' }, { _id: ids.client2, clientID: 'client2' }]) as unknown,
      },
    ]);
    expect((await c.root.get('/roles/role1')).status).toBe(200);
    expect((await c.root.get('/roles/nonexistent')).status).toBe(404);
  });

  it('POST /roles with channels and clients by _id or by name answers 201 and changes both sides', async () => {
    const res = await c.root.post('/roles', { name: 'role2', channels: [{ _id: ids.TestChannel1 }, { name: 'TestChannel2' }], clients: [{ clientID: 'client1' }] });
    expect(res.status).toBe(201);
    const role = (await c.root.get('/roles/role2')).body as Role;
    expect(role.channels.map((ch) => ch.name).sort()).toEqual(['TestChannel1', 'TestChannel2']);
    expect(role.clients).toEqual([{ _id: ids.client1, clientID: 'client1' }]);
    expect(((await c.root.get(`/channels/${ids.TestChannel1}`)).body as { allow: string[] }).allow).toContain('role2');
    expect(((await c.root.get(`/clients/${ids.client1}`)).body as { roles: string[] }).roles).toContain('role2');
  });

  it('POST refuses what OpenHIM refuses: no name 400, nothing to hold it 400, a clientID as name 409, and a taken name 409', async () => {
    expect((await c.root.post('/roles', { channels: [{ _id: ids.TestChannel1 }] })).status).toBe(400);
    expect((await c.root.post('/roles', { name: 'empty-role' })).status).toBe(400);
    // OpenHIM answers 400 here; Junction answers every clash with an existing name 409, as for clients and channels.
    expect((await c.root.post('/roles', { name: 'role1', channels: [{ _id: ids.TestChannel1 }] })).status).toBe(409);
    expect((await c.root.post('/roles', { name: 'client2', channels: [{ _id: ids.TestChannel1 }] })).status).toBe(409);
  });

  it('a role fetched with GET and sent back with PUT is accepted (200) and unchanged', async () => {
    const before = (await c.root.get('/roles/role2')).body as Role;
    const res = await c.root.put('/roles/role2', before);
    expect(res.status).toBe(200);
    expect((await c.root.get('/roles/role2')).body).toEqual(before);
  });

  it('PUT /roles/:name replaces a given list and renames; 404 for an unknown role', async () => {
    expect((await c.root.put('/roles/role2', { name: 'role2-renamed', clients: [] })).status).toBe(200);
    const role = (await c.root.get('/roles/role2-renamed')).body as Role;
    expect(role.clients).toEqual([]);
    expect(role.channels).toHaveLength(2);
    expect((await c.root.get('/roles/role2')).status).toBe(404);
    expect((await c.root.put('/roles/nonexistent', { clients: [{ _id: ids.client2 }] })).status).toBe(404);
  });

  it('DELETE /roles/:name removes the name everywhere (200), then 404', async () => {
    expect((await c.root.delete('/roles/role2-renamed')).status).toBe(200);
    expect((await c.root.get('/roles/role2-renamed')).status).toBe(404);
    expect(((await c.root.get(`/channels/${ids.TestChannel1}`)).body as { allow: string[] }).allow).not.toContain('role2-renamed');
    expect((await c.root.delete('/roles/role2-renamed')).status).toBe(404);
  });

  it('only admins read or change roles (403 otherwise, 401 without credentials)', async () => {
    expect((await viewer.get('/roles')).status).toBe(403);
    expect((await viewer.post('/roles', { name: 'sneaky', channels: [{ _id: ids.TestChannel1 }] })).status).toBe(403);
    expect((await viewer.delete('/roles/role1')).status).toBe(403);
    expect((await c.caller({}).get('/roles')).status).toBe(401);
  });
});
