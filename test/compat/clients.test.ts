/**
 * OpenHIM compatibility: the clients routes and `GET /authentication/types`, called as OpenHIM's integration tests
 * (test/integration/clientsAPITests.js, authenticationAPITests.js) and its console's client modal call them.
 */
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyClientPassword } from '../../service/accounts/client-credentials.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { startCompat, without } from './openhim-caller.js';
import { expectRefusalNaming } from './refusal.js';
import type { Caller, CompatJunction } from './openhim-caller.js';

interface Client {
  _id: string;
  clientID: string;
  name: string;
  [field: string]: unknown;
}

/** What OpenHIM's console does with a typed password: a random salt, and sha512(password + salt) in hex. */
function consoleHash(password: string) {
  const salt = randomBytes(16).toString('hex');
  return { passwordAlgorithm: 'sha512', passwordSalt: salt, passwordHash: createHash('sha512').update(password + salt).digest('hex') };
}

describe('OpenHIM compatibility: clients', () => {
  let c: CompatJunction;
  let nonAdmin: Caller;
  const cert = new X509Certificate(generateSelfSigned('him.jembi.org').cert);

  beforeAll(async () => {
    c = await startCompat();
    nonAdmin = await c.user('nonroot@jembi.org', ['PoC']);
  });
  afterAll(async () => {
    await c.destroy();
  });

  const create = async (body: Record<string, unknown>): Promise<Client> => {
    const res = await c.root.post('/clients', body);
    expect(res.status, res.text).toBe(201);
    return res.body as Client;
  };

  it("POST /clients takes the console's body: a SHA-1 certFingerprint from the keystore, a client-side sha512 hash, a customTokenID and empty strings", async () => {
    const res = await c.root.post('/clients', {
      clientID: 'YUIAIIIICIIAIA',
      clientDomain: 'him.jembi.org',
      name: 'OpenMRS Ishmael instance',
      roles: ['OpenMRS_PoC', 'PoC'],
      certFingerprint: cert.fingerprint,
      customTokenID: 'openmrs-custom-token-0001',
      organization: '',
      contactPersonEmail: '',
      description: null,
      ...consoleHash('ishmael-password'),
    });
    expect(res.status, res.text).toBe(201);
    const body = res.body as Client;
    expect(body).toMatchObject({ clientID: 'YUIAIIIICIIAIA', certFingerprint: cert.fingerprint, customTokenSet: true, passwordAlgorithm: 'sha512', hasPassword: true });
    expect(body).not.toHaveProperty('organization');
    expect(body).not.toHaveProperty('customTokenID');
    expect(res.text).not.toMatch(/passwordHash|passwordSalt|openmrs-custom-token/);
    // The password the console hashed is the one the transaction port's Basic auth accepts.
    const stored = await c.t.junction.store.clients.findOne({ clientID: 'YUIAIIIICIIAIA' });
    expect(await verifyClientPassword(stored ?? {}, 'ishmael-password')).toBe(true);
  });

  it('GET /clients and GET /clients/:id answer customTokenSet and never the token', async () => {
    await create({ clientID: 'no-token', name: 'No token', roles: ['PoC'] });
    const list = await c.root.get('/clients');
    expect(list.status).toBe(200);
    const clients = list.body as Client[];
    expect(clients.find((x) => x.clientID === 'YUIAIIIICIIAIA')).toMatchObject({ customTokenSet: true });
    expect(clients.find((x) => x.clientID === 'no-token')).toMatchObject({ customTokenSet: false });
    expect(list.text).not.toContain('customTokenID');
  });

  it('a client sent back exactly as fetched is accepted and unchanged (the round trip)', async () => {
    const made = await create({ clientID: 'round-trip', name: 'Round trip', clientDomain: 'rt.example', roles: ['PoC'], password: 'round-trip-pw-1', customTokenID: 'round-trip-token-0001', certFingerprint: cert.fingerprint256 });
    const fetched = await c.root.get(`/clients/${made._id}`);
    expect(fetched.status).toBe(200);
    const put = await c.root.put(`/clients/${made._id}`, fetched.body);
    expect(put.status, put.text).toBe(200);
    const again = await c.root.get(`/clients/${made._id}`);
    expect(without(again.body as Client, 'updatedAt')).toEqual(without(fetched.body as Client, 'updatedAt'));
    // The credentials survived: the password still verifies on the transaction port's terms, the token is still set.
    expect(again.body).toMatchObject({ hasPassword: true, customTokenSet: true, certFingerprint: cert.fingerprint256 });
  });

  it("a document from OpenHIM (its __v, a foreign _id, nulls for unused fields) is accepted on PUT; _id is ignored", async () => {
    const made = await create({ clientID: 'from-openhim', name: 'From OpenHIM', roles: ['PoC'] });
    const res = await c.root.put(`/clients/${made._id}`, {
      _id: 'thisShouldBeIgnored',
      __v: 0,
      roles: ['clientTest_update'],
      name: 'Devil_may_Cry',
      clientDomain: null,
      customTokenID: null,
      location: '',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ _id: made._id, name: 'Devil_may_Cry', roles: ['clientTest_update'], customTokenSet: false });
  });

  it('customTokenID set and cleared with null, and passwordHash: null removes the password, as in OpenHIM', async () => {
    const made = await create({ clientID: 'token-client', name: 'Token client', roles: ['PoC'], ...consoleHash('token-client-pw') });
    expect((await c.root.put(`/clients/${made._id}`, { customTokenID: 'a-new-custom-token-0001' })).status).toBe(200);
    expect((await c.root.get(`/clients/${made._id}`)).body).toMatchObject({ customTokenSet: true });
    expect((await c.root.put(`/clients/${made._id}`, { customTokenID: null })).status).toBe(200);
    expect((await c.root.get(`/clients/${made._id}`)).body).toMatchObject({ customTokenSet: false });
    expect((await c.root.put(`/clients/${made._id}`, { passwordHash: null })).status).toBe(200);
    expect((await c.root.get(`/clients/${made._id}`)).body).toMatchObject({ hasPassword: false });
  });

  it('GET /clients/:clientID?byNamedClientID=true finds the client by its clientID', async () => {
    const made = await create({ clientID: 'named-lookup', name: 'Named', roles: ['PoC'] });
    const res = await c.root.get('/clients/named-lookup?byNamedClientID=true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: made._id, clientID: 'named-lookup' });
    expect((await c.root.get('/clients/named-lookup')).status).toBe(404);
    expect((await c.root.get('/clients/nobody-by-that-id?byNamedClientID=true')).status).toBe(404);
    expect((await nonAdmin.get('/clients/named-lookup?byNamedClientID=true')).status).toBe(403);
  });

  it('GET /clients/:id/clientName gives a non-admin the name alone', async () => {
    const made = await create({ clientID: 'OpenHIE-NodeJs', clientDomain: 'www.zedmusic-unique.co.zw', name: 'OpenHIE NodeJs', roles: ['test_role_PoC', 'monitoring'], password: 'zed-music-pw-1' });
    const res = await nonAdmin.get(`/clients/${made._id}/clientName`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'OpenHIE NodeJs' });
    expect((await nonAdmin.get('/clients/000000000000000000000000/clientName')).status).toBe(404);
    expect((await c.caller({}).get(`/clients/${made._id}/clientName`)).status).toBe(401);
  });

  it('GET /clients/domain/:clientDomain finds by domain, for admins only', async () => {
    await create({ clientID: 'Zambia_OpenHIE_Instance', clientDomain: 'www.zedmusic.co.zw', name: 'OpenHIE NodeJs', roles: ['PoC'] });
    const res = await c.root.get('/clients/domain/www.zedmusic.co.zw');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ clientID: 'Zambia_OpenHIE_Instance' });
    expect((await nonAdmin.get('/clients/domain/www.zedmusic.co.zw')).status).toBe(403);
  });

  it('refuses non-admins with 403 on the admin routes, as OpenHIM does', async () => {
    const made = await create({ clientID: 'admin-only', name: 'Admin only', roles: ['PoC'] });
    expect((await nonAdmin.get('/clients')).status).toBe(403);
    expect((await nonAdmin.post('/clients', { clientID: 'sneaky', name: 'S', roles: ['PoC'] })).status).toBe(403);
    expect((await nonAdmin.get(`/clients/${made._id}`)).status).toBe(403);
    expect((await nonAdmin.put(`/clients/${made._id}`, {})).status).toBe(403);
    expect((await nonAdmin.delete(`/clients/${made._id}`)).status).toBe(403);
  });

  it('still answers 400 for an unknown field or a wrong type, naming it', async () => {
    const made = await create({ clientID: 'strict', name: 'Strict', roles: ['PoC'] });
    expectRefusalNaming(await c.root.put(`/clients/${made._id}`, { name: 'x', colour: 'blue' }), 'body.colour');
    expectRefusalNaming(await c.root.put(`/clients/${made._id}`, { customTokenSet: 'yes' }), 'body.customTokenSet');
    expectRefusalNaming(await c.root.post('/clients', { clientID: 'bad-fp', name: 'Bad', certFingerprint: 'not-a-fingerprint' }), 'body.certFingerprint');
  });

  it('DELETE /clients/:id removes the client', async () => {
    const made = await create({ clientID: 'Jembi_OpenHIE_Instance', clientDomain: 'www.jembi.org', name: 'OpenHIE NodeJs', roles: ['PoC'] });
    expect((await c.root.delete(`/clients/${made._id}`)).status).toBe(200);
    expect((await c.root.get(`/clients/${made._id}`)).status).toBe(404);
  });

  it('GET /authentication/types lists the client authentication types to admins (403 for others)', async () => {
    const res = await c.root.get('/authentication/types');
    expect(res.status).toBe(200);
    // Junction's defaults are OpenHIM's: mutual TLS and Basic on, custom token and JWT off.
    expect(res.body).toEqual(['mutual-tls-auth', 'basic-auth']);
    expect((await nonAdmin.get('/authentication/types')).status).toBe(403);
    // The sign-in types moved to their own public route.
    expect((await c.caller({}).get('/authentication/api-types')).body).toEqual(expect.arrayContaining(['local']));
  });
});

describe('OpenHIM compatibility: client authentication types follow the settings', () => {
  it('lists custom-token-auth and jwt-auth when they are on', async () => {
    const c = await startCompat({ authentication: { enableMutualTLSAuthentication: false, enableCustomTokenAuthentication: true, enableJWTAuthentication: true, jwt: { secretOrPublicKey: 'a-jwt-secret-for-the-test-0123' } } });
    try {
      expect((await c.root.get('/authentication/types')).body).toEqual(['basic-auth', 'custom-token-auth', 'jwt-auth']);
    } finally {
      await c.destroy();
    }
  });
});
