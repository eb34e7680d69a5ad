import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { customTokenDigest, verifyClientPassword } from '../../service/accounts/client-credentials.js';
import type { ChannelRecord } from '../../service/storage/records.js';

interface Client {
  _id: string;
  clientID: string;
  [key: string]: unknown;
}

/** No answer may ever carry a secret or a hash, whatever it is called. */
function expectNoSecrets(res: TestResponse, ...secrets: string[]): void {
  expect(res.text).not.toMatch(/passwordHash|passwordSalt|customTokenHash|certPem|customTokenID"|"password"|scrypt\$|BEGIN CERTIFICATE/);
  for (const secret of secrets) expect(res.text).not.toContain(secret);
}

function channel(name: string, allow: string[]): Omit<ChannelRecord, '_id'> {
  const now = new Date();
  return {
    name, type: 'http', urlPattern: `^/${name}$`, methods: [], status: 'enabled', authType: 'private', allow,
    whitelist: [], matchContentTypes: [], requestBody: true, responseBody: true, autoRetryEnabled: false,
    autoRetryPeriodMinutes: 60, rewriteUrls: false, addAutoRewriteRules: true, rewriteUrlsConfig: [], txViewAcl: [],
    txViewFullAcl: [], txRerunAcl: [], alerts: [], properties: [], routes: [], createdAt: now, updatedAt: now,
  };
}

const lims = {
  clientID: 'lims.lab-1',
  name: 'Laboratory system',
  clientDomain: 'lims.clinic.example',
  roles: ['lab'],
  organization: 'Clinic lab',
  contactPersonEmail: 'lab@clinic.example',
  password: 'lims-password-1',
  customTokenID: 'lims-custom-token-0123456789',
};

describe('clients API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  const pair = generateSelfSigned('lims.clinic.example');

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
  });
  afterAll(async () => t.destroy());

  const post = (json: unknown) => t.inject('/clients', { method: 'POST', headers: admin, json });
  const put = (id: string, json: unknown) => t.inject(`/clients/${id}`, { method: 'PUT', headers: admin, json });

  it('lets an admin create, read, update and delete a client without ever showing its secrets', async () => {
    const created = await post({ ...lims, certificate: pair.cert });
    expect(created.status).toBe(201);
    expectNoSecrets(created, lims.password, lims.customTokenID);
    const body = created.body as Client;
    expect(body).toMatchObject({
      clientID: 'lims.lab-1', name: 'Laboratory system', clientDomain: 'lims.clinic.example', roles: ['lab'],
      organization: 'Clinic lab', passwordAlgorithm: 'scrypt', hasPassword: true, customTokenSet: true, certificateSubjectCN: 'lims.clinic.example',
    });
    expect(body.certFingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    // Stored hashed: the password verifies, the token is kept only as its digest, the certificate as PEM.
    const stored = await t.junction.store.clients.findById(body._id);
    expect(stored?.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyClientPassword(stored!, lims.password)).toBe(true);
    expect(stored?.customTokenHash).toBe(customTokenDigest(lims.customTokenID));
    expect(stored?.certPem).toContain('BEGIN CERTIFICATE');

    for (const path of ['/clients', `/clients/${body._id}`, '/clients/domain/lims.clinic.example']) {
      const res = await t.inject(path, { headers: admin });
      expect(res.status).toBe(200);
      expectNoSecrets(res, lims.password, lims.customTokenID);
    }
    const list = await t.inject('/clients', { headers: admin });
    expect((list.body as Client[]).map((c) => c.clientID)).toEqual(['lims.lab-1']);
    const byDomain = await t.inject('/clients/domain/lims.clinic.example', { headers: admin });
    expect(byDomain.body).toMatchObject({ _id: body._id });
    expect((await t.inject('/clients/domain/nobody.example', { headers: admin })).status).toBe(404);

    const updated = await put(body._id, { name: 'LIMS', roles: ['lab', 'his'], organization: null, customTokenID: null, certificate: null });
    expect(updated.status).toBe(200);
    expectNoSecrets(updated);
    expect(updated.body).toMatchObject({ name: 'LIMS', roles: ['lab', 'his'], hasPassword: true, customTokenSet: false });
    expect(updated.body).not.toHaveProperty('organization');
    expect(updated.body).not.toHaveProperty('certFingerprint');
    const afterUpdate = await t.junction.store.clients.findById(body._id);
    expect(afterUpdate).not.toHaveProperty('customTokenHash');
    expect(afterUpdate).not.toHaveProperty('certPem');

    const noPassword = await put(body._id, { password: null });
    expect(noPassword.body).toMatchObject({ hasPassword: false });
    expect(noPassword.body).not.toHaveProperty('passwordAlgorithm');

    const removed = await t.inject(`/clients/${body._id}`, { method: 'DELETE', headers: admin });
    expect(removed.status).toBe(200);
    expect((await t.inject(`/clients/${body._id}`, { headers: admin })).status).toBe(404);
    expect((await t.inject(`/clients/${body._id}`, { method: 'DELETE', headers: admin })).status).toBe(404);
    expect((await put(body._id, { name: 'x' })).status).toBe(404);
  });

  it('keeps an OpenHIM sha512 password hash imported as given', async () => {
    const hash = createHash('sha512').update('openhim-secret' + 'f00dsalt').digest('hex');
    const res = await post({ clientID: 'imported', name: 'Imported', passwordAlgorithm: 'sha512', passwordHash: hash, passwordSalt: 'f00dsalt' });
    expect(res.status).toBe(201);
    expectNoSecrets(res, hash, 'f00dsalt');
    expect(res.body).toMatchObject({ passwordAlgorithm: 'sha512', hasPassword: true });
    const stored = await t.junction.store.clients.findById((res.body as Client)._id);
    expect(await verifyClientPassword(stored!, 'openhim-secret')).toBe(true);

    // A new plain password replaces the imported hash and its salt.
    const changed = await put((res.body as Client)._id, { password: 'new-plain-password' });
    expect(changed.body).toMatchObject({ passwordAlgorithm: 'scrypt' });
    const after = await t.junction.store.clients.findById((res.body as Client)._id);
    expect(after).not.toHaveProperty('passwordSalt');
    expect(await verifyClientPassword(after!, 'new-plain-password')).toBe(true);
  });

  it('answers 409 for a duplicate clientID, custom token or certificate, naming the field', async () => {
    const cert = generateSelfSigned('dup.clinic.example').cert;
    const first = await post({ clientID: 'dup-a', name: 'A', customTokenID: 'shared-token-0123456789', certificate: cert });
    expect(first.status).toBe(201);
    const cases: [unknown, string][] = [
      [{ clientID: 'dup-a', name: 'Again' }, 'body.clientID'],
      [{ clientID: 'dup-b', name: 'B', customTokenID: 'shared-token-0123456789' }, 'body.customTokenID'],
      [{ clientID: 'dup-c', name: 'C', certificate: cert }, 'body.certFingerprint'],
    ];
    for (const [json, path] of cases) {
      const res = await post(json);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: { code: 'CONFLICT', details: [{ path }] } });
      // An error may name the field, never echo its value.
      expect(res.text).not.toContain('shared-token-0123456789');
    }
    const other = await post({ clientID: 'dup-d', name: 'D' });
    const rename = await put((other.body as Client)._id, { clientID: 'dup-a' });
    expect(rename.status).toBe(409);
    expect(await t.junction.store.clients.count({ clientID: { $in: ['dup-b', 'dup-c'] } })).toBe(0);
  });

  it('answers 400 naming the field for bad payloads', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'No id' }, 'body.clientID'],
      [{ clientID: 'has space', name: 'X' }, 'body.clientID'],
      [{ clientID: 'x1' }, 'body.name'],
      [{ clientID: 'x2', name: 'X', roles: ['bad/role'] }, 'body.roles.0'],
      [{ clientID: 'x3', name: 'X', password: 'short' }, 'body.password'],
      [{ clientID: 'x4', name: 'X', customTokenID: 'too-short' }, 'body.customTokenID'],
      [{ clientID: 'x4b', name: 'X', customToken: 'junction-old-name-0123' }, 'body.customToken'],
      [{ clientID: 'x4c', name: 'X', certFingerprint: 'AB:CD' }, 'body.certFingerprint'],
      [{ clientID: 'x4d', name: 'X', hasPassword: 'yes' }, 'body.hasPassword'],
      [{ clientID: 'x5', name: 'X', certificate: 'not a pem' }, 'body.certificate'],
      [{ clientID: 'x6', name: 'X', contactPersonEmail: 'nope' }, 'body.contactPersonEmail'],
      [{ clientID: 'x7', name: 'X', passwordHash: 'abcd' }, 'body.passwordAlgorithm'],
      [{ clientID: 'x7b', name: 'X', passwordHash: 'abcd', passwordAlgorithm: 'scrypt', passwordSalt: 's' }, 'body.passwordAlgorithm'],
      [{ clientID: 'x8', name: 'X', passwordAlgorithm: 'md5', passwordHash: 'ab', passwordSalt: 's' }, 'body.passwordAlgorithm'],
      [{ clientID: 'x9', name: 'X', passwordHash: 'ab', passwordAlgorithm: 'sha256' }, 'body.passwordSalt'],
      [{ clientID: 'x10', name: 'X', passwordHash: 'notHex', passwordAlgorithm: 'sha256', passwordSalt: 's' }, 'body.passwordHash'],
      [{ clientID: 'x11', name: 'X', passwordHash: 'ab', passwordAlgorithm: 'sha256', passwordSalt: 's' }, 'body.passwordHash'],
      [{ clientID: 'x12', name: 'X', cert: 'x' }, 'body.cert'],
    ];
    for (const [json, path] of cases) {
      const res = await post(json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path), JSON.stringify(json)).toContain(path);
    }
    expect((await t.inject('/clients?all=1', { headers: admin })).status).toBe(400);
    const existing = await post({ clientID: 'x-ok', name: 'OK' });
    // An empty update changes nothing (OpenHIM answers it 200 too).
    expect((await put((existing.body as Client)._id, {})).status).toBe(200);
    expect((await put((existing.body as Client)._id, { clientID: null })).status).toBe(400);
  });

  it('keeps channel grants with the client when its clientID changes, and drops them when it is deleted', async () => {
    const created = await post({ clientID: 'his-1', name: 'HIS' });
    const id = (created.body as Client)._id;
    const ch = await t.junction.store.channels.insert(channel('grants', ['his-1', 'lab']));
    expect((await put(id, { clientID: 'his-2' })).status).toBe(200);
    expect((await t.junction.store.channels.findById(ch._id))?.allow).toEqual(['his-2', 'lab']);
    expect((await t.inject(`/clients/${id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    expect((await t.junction.store.channels.findById(ch._id))?.allow).toEqual(['lab']);
  });

  it('refuses a clientID that a client holds as a role, and a role that is another client id', async () => {
    await post({ clientID: 'modality', name: 'M', roles: ['radiology-role'] });
    const clash = await post({ clientID: 'radiology-role', name: 'R' });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ error: { details: [{ path: 'body.clientID' }] } });
    await post({ clientID: 'pacs', name: 'PACS' });
    const roleClash = await post({ clientID: 'ris', name: 'RIS', roles: ['ok-role', 'pacs'] });
    expect(roleClash.status).toBe(409);
    expect(roleClash.body).toMatchObject({ error: { details: [{ path: 'body.roles.1' }] } });
    // A channel may grant a clientID before that client is registered.
    await t.junction.store.channels.insert(channel('pre-granted', ['future-client']));
    expect((await post({ clientID: 'future-client', name: 'F' })).status).toBe(201);
  });

  it('refuses with 400 a client that would hold its own clientID as a role, on POST and PUT, naming the field', async () => {
    const own = await post({ clientID: 'self-lab', name: 'Self', roles: ['lab', 'self-lab'] });
    expect(own.status).toBe(400);
    expect(own.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ path: 'body.roles.1' }] } });
    expect((own.body as { error: { message: string } }).error.message).toMatch(/own clientID/);
    expect(await t.junction.store.clients.count({ clientID: 'self-lab' })).toBe(0);

    const made = await post({ clientID: 'self-ris', name: 'RIS', roles: ['radiology'] });
    expect(made.status).toBe(201);
    const id = (made.body as Client)._id;
    // Adding the role...
    const addRole = await put(id, { roles: ['radiology', 'self-ris'] });
    expect(addRole.status).toBe(400);
    expect(addRole.body).toMatchObject({ error: { details: [{ path: 'body.roles.1' }] } });
    // ...or renaming onto a role it holds.
    const rename = await put(id, { clientID: 'radiology' });
    expect(rename.status).toBe(400);
    expect(rename.body).toMatchObject({ error: { details: [{ path: 'body.clientID' }] } });
    // Both at once names the roles, which is what was sent to hold the clientID.
    expect((await put(id, { clientID: 'ris-2', roles: ['ris-2'] })).body).toMatchObject({ error: { details: [{ path: 'body.roles.0' }] } });
    expect((await t.inject(`/clients/${id}`, { headers: admin })).body).toMatchObject({ clientID: 'self-ris', roles: ['radiology'] });
    // Renaming away from the clash together with the roles is fine.
    expect((await put(id, { clientID: 'radiology', roles: ['imaging'] })).status).toBe(200);
  });

  it('refuses with 409 a rename onto a role another client holds, and a role named like another client', async () => {
    const holder = await post({ clientID: 'ward-app', name: 'Ward app', roles: ['ward'] });
    expect(holder.status).toBe(201);
    const other = (await post({ clientID: 'bed-board', name: 'Bed board' })).body as Client;
    const rename = await put(other._id, { clientID: 'ward' });
    expect(rename.status).toBe(409);
    expect(rename.body).toMatchObject({ error: { code: 'CONFLICT', details: [{ path: 'body.clientID' }] } });
    const role = await put(other._id, { roles: ['beds', 'ward-app'] });
    expect(role.status).toBe(409);
    expect(role.body).toMatchObject({ error: { code: 'CONFLICT', details: [{ path: 'body.roles.1' }] } });
    // The roles API keeps the same rule from its side.
    const roleNamedLikeClient = await t.inject('/roles', { method: 'POST', headers: admin, json: { name: 'bed-board', clients: [{ clientID: 'ward-app' }] } });
    expect(roleNamedLikeClient.status).toBe(409);
    expect((await t.inject('/roles/ward', { method: 'PUT', headers: admin, json: { name: 'bed-board' } })).status).toBe(409);
    expect((await t.inject(`/clients/${other._id}`, { headers: admin })).body).toMatchObject({ clientID: 'bed-board', roles: [] });
  });

  it('refuses non-admins with 403 on every route', async () => {
    const nurse = { email: 'nurse@clinic.example', firstname: 'N', surname: 'N', groups: ['nurses'], password: 'nurse-password-1' };
    expect((await t.inject('/users', { method: 'POST', headers: admin, json: nurse })).status).toBe(201);
    const headers = { authorization: basic(nurse.email, nurse.password) };
    const some = await post({ clientID: 'visible', name: 'V', clientDomain: 'visible.example' });
    const id = (some.body as Client)._id;
    const attempts: [string, string, unknown?][] = [
      ['GET', '/clients'],
      ['POST', '/clients', { clientID: 'sneaky', name: 'S' }],
      ['GET', `/clients/${id}`],
      ['GET', '/clients/domain/visible.example'],
      ['PUT', `/clients/${id}`, { name: 'changed' }],
      ['DELETE', `/clients/${id}`],
    ];
    for (const [method, path, json] of attempts) {
      const res = await t.inject(path, { method, headers, json });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    }
    expect(await t.junction.store.clients.findById(id)).toMatchObject({ name: 'V' });
    expect((await t.inject('/clients', { headers: {} })).status).toBe(401);
  });
});
