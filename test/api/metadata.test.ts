/**
 * Configuration export and import between two real Junctions: the round trip (export, import into an empty
 * instance, export again: equal), validate's Valid and Conflict, Error for a bad collection or document, 400 for a
 * malformed body, an imported tcp channel really listening, contact groups matched by name, and secrets: absent by
 * default, sealed with a passphrase, opened on import (a wrong passphrase is a 400 that writes nothing).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { freePorts } from '../helpers/process.js';

interface Result {
  model: string;
  record: unknown;
  status: string;
  message: string;
  uid: string;
}
type Export = Record<string, Record<string, unknown>[]>;

const PASSPHRASE = 'a long export passphrase';
const ROUTE_PASSWORD = 'route-secret-Xy12';
const MEDIATOR_PASSWORD = 'mediator-secret-Qw34';
const CLIENT_PASSWORD = 'client-password-1';
const CUSTOM_TOKEN = 'custom-token-0123456789abcdef';
const USER_PASSWORD = 'nina-password-12';

describe('metadata export and import', () => {
  let a: TestJunction;
  let b: TestJunction;
  let adminA: { authorization: string };
  let adminB: { authorization: string };

  const exportOf = async (t: TestJunction, headers: Record<string, string>, query = '') => {
    const res = await t.inject(`/metadata${query}`, { headers });
    expect(res.status, res.text).toBe(200);
    const body = res.body as Export[];
    expect(body).toHaveLength(1);
    return body[0] as Export;
  };
  const post = async (t: TestJunction, path: string, json: unknown, headers: Record<string, string>) => t.inject(path, { method: 'POST', headers, json });
  const results = async (t: TestJunction, path: string, json: unknown, headers: Record<string, string>) => {
    const res = await post(t, path, json, headers);
    expect(res.status, res.text).toBe(201);
    return res.body as Result[];
  };
  const statuses = (rs: Result[]) => rs.map((r) => `${r.model}:${r.uid}:${r.status}${r.message === '' ? '' : ` ${r.message}`}`);

  beforeAll(async () => {
    [a, b] = await Promise.all([startJunction(), startJunction()]);
    adminA = { authorization: await unlockRoot(a) };
    adminB = { authorization: await unlockRoot(b) };
    await a.junction.keystore.addCAs(b.certificate);
    const ok = async (path: string, json: unknown) => {
      const res = await post(a, path, json, adminA);
      expect(res.status, res.text).toBe(201);
      return res.body as { _id: string };
    };
    // Two groups, so a group matched by anything but its name would overwrite the first.
    const oncall = await ok('/groups', { group: 'Lab on-call', users: [{ user: 'ops@clinic.example', method: 'email', maxAlerts: '1 per hour' }] });
    await ok('/groups', { group: 'Night shift', users: [{ user: 'nina@clinic.example', method: 'sms' }] });
    await ok('/users', { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: USER_PASSWORD, msisdn: '+27821234567' });
    await ok('/users', { email: 'ivan@clinic.example', firstname: 'Ivan', surname: 'Invited', groups: ['lab'] });
    await ok('/clients', { clientID: 'lab-system', name: 'Lab system', roles: ['lab'], password: CLIENT_PASSWORD, customTokenID: CUSTOM_TOKEN, organization: 'Clinic' });
    await ok('/channels', {
      name: 'Lab results',
      urlPattern: '^/lab/.*$',
      allow: ['lab'],
      routes: [{ name: 'lab', host: '127.0.0.1', port: 9876, primary: true, username: 'junction', password: ROUTE_PASSWORD }],
      alerts: [{ status: '5xx', groups: [oncall._id], users: [{ user: 'ops@clinic.example', method: 'email', maxAlerts: 'no max' }] }],
    });
    await ok('/channels', { name: 'Pharmacy poll', type: 'polling', urlPattern: '^/pharmacy$', pollingSchedule: '5 minutes', status: 'disabled', routes: [{ name: 'pharmacy', host: '127.0.0.1', port: 9877, primary: true }] });
    await ok('/mediators', {
      urn: 'urn:mediator:lab-bridge',
      version: '1.2.0',
      name: 'Lab bridge',
      endpoints: [{ name: 'bridge', host: '127.0.0.1', port: 8500 }],
      configDefs: [
        { param: 'upstream', type: 'string' },
        { param: 'apiKey', type: 'password' },
      ],
      config: { upstream: 'https://lab.example', apiKey: MEDIATOR_PASSWORD },
    });
  });
  afterAll(async () => Promise.all([a.destroy(), b.destroy()]));

  it('exports OpenHIM’s array of one object, references by name, no ids or bookkeeping, and no secrets by default', async () => {
    const exported = await exportOf(a, adminA);
    expect(Object.keys(exported)).toEqual(['Channels', 'Clients', 'Mediators', 'Users', 'ContactGroups', 'KeystoreModelAPI']);
    const [keystore] = exported.KeystoreModelAPI as { cert: { fingerprint256: string }; ca: { fingerprint256: string }[] }[];
    expect(keystore?.cert.fingerprint256).toBe(a.junction.keystore.certificate().fingerprint256);
    expect(keystore?.ca.map((c) => c.fingerprint256)).toEqual([b.junction.keystore.certificate().fingerprint256]);
    expect(JSON.stringify(exported)).not.toContain('PRIVATE KEY');
    const text = JSON.stringify(exported);
    for (const secret of [ROUTE_PASSWORD, MEDIATOR_PASSWORD, 'scrypt$', 'passwordHash', 'customTokenHash', '"_id"', 'createdAt', 'updatedBy', 'encryptedSecrets']) expect(text).not.toContain(secret);
    const lab = exported.Channels?.find((c) => c.name === 'Lab results') as { alerts: { groups: string[] }[]; routes: Record<string, unknown>[] };
    expect(lab.alerts[0]?.groups).toEqual(['Lab on-call']);
    expect(lab.routes[0]).toMatchObject({ name: 'lab', username: 'junction' });
    expect(lab.routes[0]).not.toHaveProperty('password');
    expect(exported.Clients).toEqual([{ clientID: 'lab-system', name: 'Lab system', roles: ['lab'], organization: 'Clinic' }]);
    expect((exported.Mediators?.[0] as { config: unknown }).config).toEqual({ upstream: 'https://lab.example', apiKey: '' });
  });

  it('round trip: an export imported into an empty instance exports the same again', async () => {
    const first = await exportOf(a, adminA);
    const imported = await results(b, '/metadata', first, adminB);
    expect(statuses(imported)).toEqual([
      'ContactGroups:Lab on-call:Inserted',
      'ContactGroups:Night shift:Inserted',
      'Users:ivan@clinic.example:Inserted',
      'Users:nina@clinic.example:Inserted',
      // The built-in account exists in every instance.
      'Users:root@junction.local:Updated',
      'Clients:lab-system:Inserted',
      'Channels:Lab results:Inserted',
      'Channels:Pharmacy poll:Inserted',
      'Mediators:urn:mediator:lab-bridge:Inserted',
      'KeystoreModelAPI::Updated',
    ]);
    // Only the server certificate must differ: without secrets its key stays behind, so B keeps serving its own.
    const second = await exportOf(b, adminB);
    const withoutServerCert = (e: Export) => ({ ...e, KeystoreModelAPI: e.KeystoreModelAPI?.map(({ cert: _cert, ...rest }) => rest) });
    expect(withoutServerCert(second)).toEqual(withoutServerCert(first));
    expect((second.KeystoreModelAPI?.[0] as { cert: { fingerprint256: string } }).cert.fingerprint256).toBe(b.junction.keystore.certificate().fingerprint256);

    // Written through the services: the alert names B's own group id, and updatedBy is the importing admin.
    const channel = await b.junction.store.channels.findOne({ name: 'Lab results' });
    const group = await b.junction.store.contactGroups.findOne({ group: 'Lab on-call' });
    expect(channel?.alerts[0]?.groups).toEqual([group?._id]);
    expect(channel?.updatedBy?.name).toBe('root@junction.local');
    // Without secrets, users are invited to set a password; nothing else about them is lost.
    const nina = await b.junction.store.users.findOne({ email: 'nina@clinic.example' });
    expect(nina).toMatchObject({ passwordHash: null, tokenType: 'newUser', msisdn: '+27821234567' });
  });

  it('validate: Conflict for what exists, Valid for what is new, Error for a bad collection or document, nothing written', async () => {
    const exported = await exportOf(a, adminA);
    const checked = await results(b, '/metadata/validate', exported, adminB);
    expect(new Set(checked.map((r) => r.status))).toEqual(new Set(['Conflict']));

    const before = await exportOf(b, adminB);
    const mixed = await results(
      b,
      '/metadata/validate',
      {
        Channels: [
          { name: 'Radiology', urlPattern: '^/rad$', routes: [{ name: 'rad', host: '127.0.0.1', port: 9000, primary: true }], alerts: [{ status: '500', groups: ['Imaging'] }] },
          { name: 'Broken', urlPattern: '^/b$', routes: [{ name: 'b', host: '127.0.0.1', port: 'eighty' }] },
          { name: 'No group', urlPattern: '^/n$', routes: [{ name: 'n', host: '127.0.0.1', port: 9001, primary: true }], alerts: [{ status: '500', groups: ['Nobody'] }] },
        ],
        ContactGroups: [{ group: 'Imaging', users: [] }],
        Widgets: [{ name: 'x' }],
      },
      adminB,
    );
    expect(statuses(mixed)).toEqual([
      'ContactGroups:Imaging:Valid',
      'Channels:Radiology:Valid',
      'Channels:Broken:Error body.routes.0.port must be integer',
      'Channels:No group:Error body.alerts.0.groups.0 names no contact group "Nobody"; import that group too, or remove it from the alert',
      'Widgets::Error Invalid Collection in Import Object: Widgets is not one of Channels, Clients, Mediators, Users, ContactGroups, KeystoreModelAPI',
    ]);
    expect(await exportOf(b, adminB)).toEqual(before);
  });

  it('imports what is valid and reports the rest as Error with the API’s message', async () => {
    const out = await results(
      b,
      '/metadata',
      { Clients: [{ clientID: 'bad id!', name: 'x' }, { clientID: 'radiology', name: 'Radiology' }], Keystore: [{ ca: [{ data: 'not a certificate' }] }] },
      adminB,
    );
    expect(statuses(out)).toEqual([
      'Clients:bad id!:Error body.clientID must match pattern "^[A-Za-z0-9._-]{1,100}$"',
      'Clients:radiology:Inserted',
      // OpenHIM's console sends the keystore as `Keystore`: it is read as the keystore, not as an unknown collection.
      'Keystore::Error ca.0.data is not a certificate that can be read',
    ]);
    expect(await b.junction.store.clients.findOne({ clientID: 'radiology' })).not.toBeNull();
    expect(await b.junction.store.clients.findOne({ clientID: 'bad id!' })).toBeNull();
  });

  it('matches contact groups by name: an import changes the group it names and no other', async () => {
    const out = await results(b, '/metadata', { ContactGroups: [{ group: 'Night shift', users: [{ user: 'sam@clinic.example', method: 'email' }] }] }, adminB);
    expect(statuses(out)).toEqual(['ContactGroups:Night shift:Updated']);
    const groups = await b.junction.store.contactGroups.find({}, { sort: { group: 1 } });
    expect(groups.map((g) => [g.group, g.users.map((u) => u.user)])).toEqual([
      ['Lab on-call', ['ops@clinic.example']],
      ['Night shift', ['sam@clinic.example']],
    ]);
  });

  it('answers 400 for a malformed body and 403 for a non-admin', async () => {
    for (const json of [[{ Channels: [] }], { Channels: {} }, 'text', { Channels: [1] }]) {
      const res = await post(b, '/metadata', json, adminB);
      if (JSON.stringify(json) === '{"Channels":[1]}') {
        expect(res.status).toBe(201);
        expect((res.body as Result[])[0]?.status).toBe('Error');
      } else expect(res.status, JSON.stringify(json)).toBe(400);
    }
    await post(b, '/users', { email: 'viewer@clinic.example', firstname: 'V', surname: 'W', groups: ['nurses'], password: 'viewer-password-1' }, adminB);
    const viewer = { authorization: basic('viewer@clinic.example', 'viewer-password-1') };
    expect((await b.inject('/metadata', { headers: viewer })).status).toBe(403);
    expect((await post(b, '/metadata', { Channels: [] }, viewer)).status).toBe(403);
  });

  it('starts the listener of an imported tcp channel', async () => {
    const [port] = await freePorts(1);
    const doc = { name: 'Lab MLLP', type: 'tcp', tcpHost: '127.0.0.1', tcpPort: port, routes: [{ name: 'lis', host: '127.0.0.1', port: 9878, type: 'mllp', primary: true }] };
    expect(statuses(await results(b, '/metadata', { Channels: [doc] }, adminB))).toEqual(['Channels:Lab MLLP:Inserted']);
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: port as number }, () => {
        socket.end();
        resolve();
      });
      socket.on('error', reject);
    });
  });

  describe('secrets', () => {
    let c: TestJunction;
    let adminC: { authorization: string };
    beforeAll(async () => {
      c = await startJunction();
      adminC = { authorization: await unlockRoot(c) };
    });
    afterAll(async () => c.destroy());

    it('needs a passphrase of some length in the header, and refuses one without includeSecrets', async () => {
      expect((await a.inject('/metadata?includeSecrets=true', { headers: adminA })).status).toBe(400);
      expect((await a.inject('/metadata?includeSecrets=true', { headers: { ...adminA, 'x-junction-passphrase': 'short' } })).status).toBe(400);
      expect((await a.inject('/metadata', { headers: { ...adminA, 'x-junction-passphrase': PASSPHRASE } })).status).toBe(400);
    });

    it('seals secrets under the passphrase and opens them on import; a wrong passphrase writes nothing', async () => {
      const sealed = await exportOf(a, { ...adminA, 'x-junction-passphrase': PASSPHRASE }, '?includeSecrets=true');
      const text = JSON.stringify(sealed);
      for (const secret of [ROUTE_PASSWORD, MEDIATOR_PASSWORD, 'scrypt$', 'PRIVATE KEY']) expect(text).not.toContain(secret);
      expect(sealed.KeystoreModelAPI?.[0]).toHaveProperty('encryptedSecrets');
      expect(sealed.Users?.find((u) => u.email === 'nina@clinic.example')).toHaveProperty('encryptedSecrets');
      expect(sealed.Users?.find((u) => u.email === 'ivan@clinic.example')).not.toHaveProperty('encryptedSecrets');

      const before = await exportOf(c, adminC);
      for (const headers of [adminC, { ...adminC, 'x-junction-passphrase': 'not the passphrase at all' }]) {
        const res = await post(c, '/metadata', sealed, headers);
        expect(res.status).toBe(400);
        expect(res.text).toMatch(/passphrase/);
        expect(await exportOf(c, adminC)).toEqual(before);
      }
      const wrongValidate = await post(c, '/metadata/validate', sealed, { ...adminC, 'x-junction-passphrase': 'not the passphrase at all' });
      expect(wrongValidate.status).toBe(400);

      const out = await results(c, '/metadata', sealed, { ...adminC, 'x-junction-passphrase': PASSPHRASE });
      expect(out.filter((r) => r.status === 'Error')).toEqual([]);
      expect(out.every((r) => !('encryptedSecrets' in (r.record as object)))).toBe(true);

      // The same configuration, secrets included: equal exports (the server certificate too, applied without a
      // restart), and the stored secrets are A's.
      expect(c.junction.keystore.certificate().fingerprint256).toBe(a.junction.keystore.certificate().fingerprint256);
      expect(await exportOf(c, adminC)).toEqual(await exportOf(a, adminA));
      const pick = async (t: TestJunction) => ({
        route: (await t.junction.store.channels.findOne({ name: 'Lab results' }))?.routes[0]?.password,
        mediator: (await t.junction.store.mediators.findOne({ urn: 'urn:mediator:lab-bridge' }))?.config,
        client: await t.junction.store.clients.findOne({ clientID: 'lab-system' }).then((cl) => [cl?.passwordHash, cl?.passwordAlgorithm, cl?.customTokenHash]),
        user: (await t.junction.store.users.findOne({ email: 'nina@clinic.example' }))?.passwordHash,
      });
      expect(await pick(c)).toEqual(await pick(a));
      expect((await pick(c)).route).toBe(ROUTE_PASSWORD);
      // Nina signs in on the new instance with her old password.
      expect((await c.inject('/me', { headers: { authorization: basic('nina@clinic.example', USER_PASSWORD) } })).status).toBe(200);
    });

    it('signs a user out elsewhere when an import replaces their password hash', async () => {
      const signIn = await c.inject('/authenticate/local', { method: 'POST', json: { username: 'nina@clinic.example', password: USER_PASSWORD } });
      expect(signIn.status, signIn.text).toBe(200);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect((await c.inject('/me', { headers: { cookie } })).status).toBe(200);
      const sealed = await exportOf(a, { ...adminA, 'x-junction-passphrase': PASSPHRASE }, '?includeSecrets=true');
      const nina = sealed.Users?.filter((u) => u.email === 'nina@clinic.example');
      expect(statuses(await results(c, '/metadata', { Users: nina }, { ...adminC, 'x-junction-passphrase': PASSPHRASE }))).toEqual(['Users:nina@clinic.example:Updated']);
      // OpenHIM's /me answers 404 "Not logged in" to a session that is gone.
      expect((await c.inject('/me', { headers: { cookie } })).status).toBe(404);
      expect((await c.inject('/me', { headers: adminC })).status).toBe(200);
    });

    it('keeps stored secrets when an import without them overwrites a record', async () => {
      const plain = await exportOf(a, adminA);
      const out = await results(c, '/metadata', { Channels: plain.Channels, Mediators: plain.Mediators, Users: plain.Users, Clients: plain.Clients }, adminC);
      expect(new Set(out.map((r) => r.status))).toEqual(new Set(['Updated']));
      expect((await c.junction.store.channels.findOne({ name: 'Lab results' }))?.routes[0]?.password).toBe(ROUTE_PASSWORD);
      expect((await c.junction.store.mediators.findOne({ urn: 'urn:mediator:lab-bridge' }))?.config).toEqual({ upstream: 'https://lab.example', apiKey: MEDIATOR_PASSWORD });
      expect((await c.inject('/me', { headers: { authorization: basic('nina@clinic.example', USER_PASSWORD) } })).status).toBe(200);
    });
  });
});
