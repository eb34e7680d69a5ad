/**
 * OpenHIM compatibility: every mediator route as OpenHIM's integration tests (mediatorAPITests.js) call it, with
 * their documents (ports as text, `type: 'http'`), status codes and answers, and the document round trip: a mediator
 * fetched with GET registered again as it came, and its fetched `config` put back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompat, without } from './openhim-caller.js';
import type { Caller, CompatJunction } from './openhim-caller.js';

const route = (name: string, port: string) => ({ name, host: 'localhost', port, type: 'http' });

/** OpenHIM's first test mediator: two default channels, ports given as text. */
const mediator1 = {
  urn: 'urn:uuid:EEA84E13-1C92-467C-B0BD-7C480462D1ED',
  version: '1.0.0',
  name: 'Save Encounter Mediator',
  description: 'A mediator for testing',
  endpoints: [route('Save Encounter', '8005')],
  defaultChannelConfig: [
    { name: 'Save Encounter 1', urlPattern: '/encounters', type: 'http', allow: [], routes: [route('Save Encounter 1', '8005')] },
    { name: 'Save Encounter 2', urlPattern: '/encounters2', type: 'http', allow: [], routes: [route('Save Encounter 2', '8005')] },
  ],
};

const mediator2 = {
  urn: 'urn:uuid:25ABAB99-23BF-4AAB-8832-7E07E4EA5902',
  version: '0.8.2',
  name: 'Patient Mediator',
  description: 'Another mediator for testing',
  endpoints: [route('Patient', '8006')],
};

/** A mediator with secrets everywhere an answer masks them: an endpoint password and password config values. */
const secretive = {
  urn: 'urn:mediator:round-trip',
  version: '1.0.0',
  name: 'Round trip mediator',
  endpoints: [{ ...route('Secured endpoint', '8010'), username: 'svc', password: 'endpoint-secret' }],
  defaultChannelConfig: [{ name: 'Round trip channel', urlPattern: '^/round-trip$', routes: [{ ...route('Secured route', '8010'), password: 'route-secret' }] }],
  configDefs: [
    { param: 'url', displayName: 'Upstream URL', type: 'string' },
    { param: 'apiKey', type: 'password' },
    { param: 'retries', type: 'number' },
    { param: 'server', type: 'struct', template: [{ param: 'host', type: 'string' }, { param: 'secret', type: 'password' }] },
  ],
  config: { url: 'https://upstream.example', apiKey: 'config-secret', retries: 3, server: { host: 'a.example', secret: 'struct-secret' } },
};

type Doc = Record<string, unknown>;

describe('OpenHIM compatibility: mediators', () => {
  let c: CompatJunction;
  let nonAdmin: Caller;

  beforeAll(async () => {
    c = await startCompat();
    nonAdmin = await c.user('not-admin@example.org', ['readers']);
  });
  afterAll(async () => {
    await c.destroy();
  });

  async function fetched(urn: string): Promise<Doc> {
    const res = await c.root.get(`/mediators/${urn}`);
    expect(res.status).toBe(200);
    return res.body as Doc;
  }

  async function heartbeatConfig(urn: string): Promise<Doc> {
    const res = await c.root.post(`/mediators/${urn}/heartbeat`, { uptime: 1, config: true });
    expect(res.status).toBe(200);
    return res.body as Doc;
  }

  describe('as OpenHIM\'s integration tests call them', () => {
    it('POST /mediators registers (201), GET /mediators lists, GET /mediators/:urn fetches, unknown urn 404', async () => {
      expect((await c.root.post('/mediators', mediator1)).status).toBe(201);
      expect((await c.root.post('/mediators', mediator2)).status).toBe(201);
      const list = await c.root.get('/mediators');
      expect(list.status).toBe(200);
      expect((list.body as Doc[]).map((m) => m.urn)).toEqual(expect.arrayContaining([mediator1.urn, mediator2.urn]));
      const one = await fetched(mediator1.urn);
      expect(one).toMatchObject({ urn: mediator1.urn, name: mediator1.name, endpoints: [{ name: 'Save Encounter', port: 8005, type: 'http' }] });
      expect(one._id).toMatch(/^[0-9a-f]{24}$/);
      expect((await c.root.get('/mediators/urn:uuid:this-doesnt-exist')).status).toBe(404);
    });

    it('every mediator route is admin only (403 for others, 401 without credentials)', async () => {
      const urn = mediator1.urn;
      const calls: [string, string, unknown?][] = [
        ['GET', '/mediators'], ['GET', `/mediators/${urn}`], ['POST', '/mediators', mediator1], ['DELETE', `/mediators/${urn}`],
        ['POST', `/mediators/${urn}/heartbeat`, { uptime: 50.25 }], ['PUT', `/mediators/${urn}/config`, { param1: 'val1' }],
        ['POST', `/mediators/${urn}/channels`, []],
      ];
      for (const [method, path, json] of calls) {
        const init = { method, ...(json === undefined ? {} : { json }) };
        expect((await nonAdmin.call(path, init)).status, `${method} ${path}`).toBe(403);
        expect((await c.caller({}).call(path, init)).status, `${method} ${path}`).toBe(401);
      }
      expect((await fetched(urn)).urn).toBe(urn);
    });

    it('an equal or lower version changes nothing (still 201); a higher one updates, keeping config already set', async () => {
      for (const version of ['1.0.0', '0.9.5']) {
        expect((await c.root.post('/mediators', { urn: mediator1.urn, version, name: 'Updated Encounter Mediator' })).status).toBe(201);
        expect((await fetched(mediator1.urn)).name).toBe(mediator1.name);
      }
      const urn = 'urn:uuid:66237a48-2e76-4318-8cd6-9c6649ad6f5f';
      const defs = [{ param: 'param1', type: 'string' }, { param: 'param2', type: 'number' }];
      expect((await c.root.post('/mediators', { urn, name: 'Mediator', version: '0.8.0', endpoints: [route('Patient', '8006')], configDefs: defs, config: { param1: 'val1', param2: 5 } })).status).toBe(201);
      const upgrade = { urn, version: '1.0.1', name: 'Updated Mediator', configDefs: [...defs, { param: 'param3', type: 'bool' }], config: { param1: 'val1', param2: 6, param3: true } };
      expect((await c.root.post('/mediators', upgrade)).status).toBe(201);
      const after = await fetched(urn);
      expect(after.name).toBe('Updated Mediator');
      expect(after.config).toEqual({ param1: 'val1', param2: 5, param3: true });
    });

    it('refuses with 400 what OpenHIM refuses: no urn, no name, no version, a version that is not semver, no or empty endpoints, bad option values', async () => {
      const base = { urn: 'urn:uuid:CA5B32BC-87CB-46A5-B9C7-AAF03500989A', name: 'Patient Mediator', version: '0.8.2', description: 'Invalid mediator for testing', endpoints: [route('Patient', '8006')] };
      const bad: Doc[] = [
        without(base, 'urn'), without(base, 'name'), without(base, 'version'), { ...base, version: '0.8' }, without(base, 'endpoints'), { ...base, endpoints: [] },
        { ...base, configDefs: [{ param: 'param1', displayName: 'Parameter 1', description: 'Test config', type: 'option', values: [] }] },
        { ...base, configDefs: [{ param: 'param1', type: 'option', values: 'this is not an array' }] },
      ];
      for (const doc of bad) expect((await c.root.post('/mediators', doc)).status, JSON.stringify(doc)).toBe(400);
      expect((await c.root.get(`/mediators/${base.urn}`)).status).toBe(404);
    });

    it('POST /mediators/:urn/heartbeat stores uptime (empty answer), answers the config when asked, 400 for a wrong body, 404 for an unknown urn', async () => {
      const urn = mediator1.urn;
      const beat = await c.root.post(`/mediators/${urn}/heartbeat`, { uptime: 50.25 });
      expect(beat.status).toBe(200);
      expect(beat.text).toBe('');
      const after = await fetched(urn);
      expect(after._uptime).toBe(50.25);
      expect(typeof after._lastHeartbeat).toBe('string');
      expect(after.online).toBe(true);
      expect(await heartbeatConfig(urn)).toEqual({});
      expect((await c.root.post(`/mediators/${urn}/heartbeat`, { downtime: 0.5 })).status).toBe(400);
      expect((await c.root.post('/mediators/urn:uuid:this-doesnt-exist/heartbeat', { uptime: 50.25 })).status).toBe(404);
      const heartbeat = (await c.caller({}).get('/heartbeat')).body as { mediators: Doc };
      expect(heartbeat.mediators[urn]).toBe(1);
    });

    it('PUT /mediators/:urn/config sets the config (200, then sent with the next heartbeat), 400 for an unknown key, 404 for an unknown urn', async () => {
      const urn = 'urn:mediator:config-test';
      const defs = [{ param: 'param1', type: 'string' }, { param: 'param2', type: 'string' }];
      expect((await c.root.post('/mediators', { ...mediator2, urn, configDefs: defs })).status).toBe(201);
      expect((await c.root.post(`/mediators/${urn}/heartbeat`, { uptime: 5 })).status).toBe(200);
      expect((await c.root.put(`/mediators/${urn}/config`, { param1: 'val1', param2: 'val2' })).status).toBe(200);
      const after = await fetched(urn);
      expect(after.config).toEqual({ param1: 'val1', param2: 'val2' });
      expect(typeof after._configModifiedTS).toBe('string');
      expect((await c.root.post(`/mediators/${urn}/heartbeat`, { uptime: 6 })).body).toEqual({ param1: 'val1', param2: 'val2' });
      expect((await c.root.put(`/mediators/${urn}/config`, { param1: 'val1', param2: 'val2', badParam: 'val3' })).status).toBe(400);
      expect((await c.root.put('/mediators/urn:uuid:this-doesnt-exist/config', { param1: 'val1' })).status).toBe(404);
    });

    it('POST /mediators/:urn/channels installs all ([]), the named ones, 400 for an unknown name, 404 for an unknown urn', async () => {
      const some = await c.root.post(`/mediators/${mediator1.urn}/channels`, ['Save Encounter 2']);
      expect(some.status).toBe(201);
      expect((some.body as Doc[]).map((ch) => ch.name)).toEqual(['Save Encounter 2']);
      // An installed channel's history starts with its creation, as for a channel created through /channels.
      const history = await c.root.get(`/channels/${String((some.body as Doc[])[0]?._id)}/audits`);
      expect(history.status).toBe(200);
      expect(history.body).toEqual([expect.objectContaining({ ref: (some.body as Doc[])[0]?._id, updatedBy: expect.objectContaining({ name: expect.any(String) as unknown }) as unknown })]);
      expect((await c.root.post(`/mediators/${mediator1.urn}/channels`, ['Something Wrong'])).status).toBe(400);
      expect((await c.root.post('/mediators/urn:uuid:MISSING/channels', [])).status).toBe(404);
      const other = { ...mediator1, urn: 'urn:mediator:all-channels', defaultChannelConfig: mediator1.defaultChannelConfig.map((ch) => ({ ...ch, name: `${ch.name} (all)` })) };
      expect((await c.root.post('/mediators', other)).status).toBe(201);
      const all = await c.root.post(`/mediators/${other.urn}/channels`, []);
      expect(all.status).toBe(201);
      expect((all.body as Doc[]).map((ch) => ch.name).sort()).toEqual(['Save Encounter 1 (all)', 'Save Encounter 2 (all)']);
      const channels = (await c.root.get('/channels')).body as Doc[];
      expect(channels.map((ch) => ch.name)).toEqual(expect.arrayContaining(['Save Encounter 2', 'Save Encounter 1 (all)', 'Save Encounter 2 (all)']));
    });

    it('DELETE /mediators/:urn removes it (200); then 404', async () => {
      expect((await c.root.delete(`/mediators/${mediator2.urn}`)).status).toBe(200);
      expect((await c.root.get(`/mediators/${mediator2.urn}`)).status).toBe(404);
      expect((await c.root.delete(`/mediators/${mediator2.urn}`)).status).toBe(404);
    });
  });

  describe('the document round trip', () => {
    beforeAll(async () => {
      expect((await c.root.post('/mediators', secretive)).status).toBe(201);
      expect((await c.root.post(`/mediators/${secretive.urn}/heartbeat`, { uptime: 12.5 })).status).toBe(200);
      expect((await c.root.post(`/mediators/${secretive.urn}/channels`, [])).status).toBe(201);
    });

    it('GET shows every password masked', async () => {
      const doc = await fetched(secretive.urn);
      expect(JSON.stringify(doc)).not.toMatch(/-secret/);
      expect(doc.config).toMatchObject({ apiKey: '********', server: { secret: '********' } });
    });

    it('POST /mediators with exactly what GET answered is accepted (201) and changes nothing', async () => {
      const before = await fetched(secretive.urn);
      for (const key of ['_id', 'online', '_uptime', '_lastHeartbeat', 'installedChannels', 'createdAt', 'updatedAt']) expect(before, key).toHaveProperty(key);
      const res = await c.root.post('/mediators', before);
      expect(res.status).toBe(201);
      expect(without(await fetched(secretive.urn), 'online')).toEqual(without(before, 'online'));
    });

    it('the fetched document with a higher version upgrades it, keeping the real passwords behind the masks', async () => {
      const before = await fetched(secretive.urn);
      const res = await c.root.post('/mediators', { ...before, version: '1.1.0', name: 'Round trip mediator, upgraded', _id: 'someone-elses-id' });
      expect(res.status).toBe(201);
      const after = await fetched(secretive.urn);
      expect(after).toMatchObject({ version: '1.1.0', name: 'Round trip mediator, upgraded', _id: before._id, installedChannels: before.installedChannels });
      expect(without(after, 'version', 'name', 'updatedAt', 'online', '_configModifiedTS')).toEqual(without(before, 'version', 'name', 'updatedAt', 'online', '_configModifiedTS'));
      expect(await heartbeatConfig(secretive.urn)).toEqual(secretive.config);
    });

    it('PUT /mediators/:urn/config with the fetched config is accepted (200) and keeps the real passwords', async () => {
      const before = await fetched(secretive.urn);
      const res = await c.root.put(`/mediators/${secretive.urn}/config`, before.config);
      expect(res.status).toBe(200);
      expect((await fetched(secretive.urn)).config).toEqual(before.config);
      expect(await heartbeatConfig(secretive.urn)).toEqual(secretive.config);
    });

    it('null means "not set": a registration with null optional and read-only fields is accepted', async () => {
      const doc = {
        ...mediator2, urn: 'urn:mediator:nulls', description: null, defaultChannelConfig: null, configDefs: null, config: null,
        _id: null, online: null, _uptime: null, _lastHeartbeat: null, _configModifiedTS: null, installedChannels: null, updatedBy: null, createdAt: null, updatedAt: null,
      };
      expect((await c.root.post('/mediators', doc)).status).toBe(201);
      const stored = await fetched('urn:mediator:nulls');
      expect(stored).not.toHaveProperty('description');
      expect(stored).toMatchObject({ defaultChannelConfig: [], configDefs: [], config: {}, installedChannels: [] });
      expect(stored._id).toMatch(/^[0-9a-f]{24}$/);
    });

    it('still 400 for a truly unknown field, a read-only field of the wrong type, and a mask with no stored password behind it', async () => {
      const base = { ...mediator2, urn: 'urn:mediator:refused' };
      const bad: [string, Doc][] = [
        ['unknown field', { ...base, colour: 'blue' }],
        ['online as text', { ...base, online: 'yes' }],
        ['_uptime as text', { ...base, _uptime: 'long' }],
        ['_id as a number', { ...base, _id: 42 }],
        ['description as a number', { ...base, description: 7 }],
        ['a masked endpoint password on a new mediator', { ...base, endpoints: [{ ...route('Patient', '8006'), password: '********' }] }],
      ];
      for (const [what, doc] of bad) {
        const res = await c.root.post('/mediators', doc);
        expect(res.status, what).toBe(400);
      }
      expect((await c.root.get(`/mediators/${base.urn}`)).status).toBe(404);
    });
  });
});
