/**
 * OpenHIM compatibility: the users routes and the set-password flow (invitation and reset), called as OpenHIM's
 * integration tests (test/integration/usersAPITests.js) and its console (users modal, set-password page) call them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSession, NEW_ROOT_PASSWORD, ROOT_EMAIL, startCompat, without } from './openhim-caller.js';
import type { Caller, CompatJunction } from './openhim-caller.js';
import { expectRefusalNaming } from './refusal.js';
import { basic } from '../helpers/junction.js';

interface User {
  _id: string;
  email: string;
  groups: string[];
  [field: string]: unknown;
}

/** The user the console's modal creates: no password (the user is invited), settings as the console seeds them. */
const invitee = {
  firstname: 'Bill',
  surname: 'Murray',
  email: 'bfm@crazy.net',
  groups: ['HISP', 'group2'],
  msisdn: '',
  settings: { list: {}, filter: { limit: 100 }, visualizer: {} },
};

describe('OpenHIM compatibility: users', () => {
  let c: CompatJunction;
  let nonAdmin: Caller;

  beforeAll(async () => {
    c = await startCompat();
    nonAdmin = await c.user('nonroot@jembi.org', ['PoC', 'HISP']);
  });
  afterAll(async () => {
    await c.destroy();
  });

  /** The admin's way of handing a link over until email exists. */
  const linkFor = async (email: string): Promise<string> => {
    const res = await c.root.post(`/users/${email}/password-token`);
    expect(res.status, res.text).toBe(201);
    return (res.body as { token: string }).token;
  };

  it('POST /users without a password invites the user: locked, a newUser token expiring in 7 days, and no sign-in', async () => {
    const res = await c.root.post('/users', invitee);
    expect(res.status, res.text).toBe(201);
    const user = res.body as User;
    expect(user).toMatchObject({ email: 'bfm@crazy.net', locked: true, tokenType: 'newUser' });
    expect(user).not.toHaveProperty('msisdn');
    const days = (Date.parse(user.expiry as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    expect(res.text).not.toMatch(/token"|tokenHash|passwordHash/);
    const signIn = await c.t.request('/authenticate/local', { method: 'POST', json: { username: 'bfm@crazy.net', password: 'anything-at-all' } });
    expect(signIn.status).toBe(401);
  });

  it('GET /token/:token shows whose link it is; PUT /token/:token with that answer and a password sets it, once', async () => {
    const token = await linkFor('bfm@crazy.net');
    const got = await c.caller({}).get(`/token/${token}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ email: 'bfm@crazy.net', firstname: 'Bill', surname: 'Murray', token, tokenType: 'newUser', locked: true });
    expect(got.body).not.toHaveProperty('_id');
    // The console's set-password page sends the fetched object back with the password and the names as typed.
    const put = await c.caller({}).put(`/token/${token}`, { ...(got.body as object), firstname: 'William', msisdn: '27123456789', password: 'murray-new-password-1' });
    expect(put.status, put.text).toBe(200);
    expect((await c.caller({}).get(`/token/${token}`)).status).toBe(404);
    expect((await c.caller({}).put(`/token/${token}`, { password: 'another-password-123' })).status).toBe(404);
    const session = await consoleSession(c, 'bfm@crazy.net', 'murray-new-password-1');
    expect((await session.get('/me')).body).toMatchObject({ user: { firstname: 'William', msisdn: '27123456789', locked: false } });
    expect((await c.root.get('/users/bfm@crazy.net')).body).not.toHaveProperty('tokenType');
  });

  it('PUT /token/:token keeps the password rules, and answers 404 for an unknown token and 410 for an expired one', async () => {
    await c.root.post('/users', { ...invitee, email: 'late@crazy.net' });
    const token = await linkFor('late@crazy.net');
    const weak = await c.caller({}).put(`/token/${token}`, { password: 'late@crazy.net' });
    expect(weak.status).toBe(400);
    expect((await c.caller({}).get(`/token/${'0'.repeat(32)}`)).status).toBe(404);
    const user = await c.t.junction.store.users.findOne({ email: 'late@crazy.net' });
    await c.t.junction.store.users.updateById(user?._id ?? '', { set: { tokenExpiry: new Date(Date.now() - 1000) } });
    expect((await c.caller({}).get(`/token/${token}`)).status).toBe(410);
    expect((await c.caller({}).put(`/token/${token}`, { password: 'a-good-password-123' })).status).toBe(410);
    // An admin renews the invitation with a new link.
    const renewed = await linkFor('late@crazy.net');
    expect((await c.caller({}).put(`/token/${renewed}`, { password: 'a-good-password-123' })).status).toBe(200);
  });

  it('GET /password-reset-request/:email answers the same for a known and an unknown address; the reset link sets a new password', async () => {
    const known = await c.caller({}).get('/password-reset-request/nonroot@jembi.org');
    const unknown = await c.caller({}).get('/password-reset-request/nobody@jembi.org');
    expect(known.status).toBe(201);
    expect(unknown.status).toBe(201);
    expect(unknown.text).toBe(known.text);
    expect((await c.root.get('/users/nonroot@jembi.org')).body).toMatchObject({ tokenType: 'existingUser', locked: false });
    expect(await c.t.junction.store.users.count({ email: 'nobody@jembi.org' })).toBe(0);
    // The link would go by email; here the admin's link stands in for it.
    const token = await linkFor('nonroot@jembi.org');
    expect((await c.caller({}).get(`/token/${token}`)).body).toMatchObject({ tokenType: 'existingUser' });
    expect((await c.caller({}).put(`/token/${token}`, { password: 'reset-password-4567' })).status).toBe(200);
    expect((await c.caller({ authorization: basic('nonroot@jembi.org', 'reset-password-4567') }).get('/users/nonroot@jembi.org')).status).toBe(200);
    expect((await nonAdmin.get('/users/nonroot@jembi.org')).status).toBe(401);
    nonAdmin = c.caller({ authorization: basic('nonroot@jembi.org', 'reset-password-4567') });
  });

  it('a user sent back exactly as fetched is accepted and unchanged (the round trip), by an admin', async () => {
    const fetched = await c.root.get('/users/bfm@crazy.net');
    const put = await c.root.put('/users/bfm@crazy.net', fetched.body);
    expect(put.status, put.text).toBe(200);
    const again = await c.root.get('/users/bfm@crazy.net');
    expect(without(again.body as User, 'updatedAt')).toEqual(without(fetched.body as User, 'updatedAt'));
  });

  it('a non-admin saving their own profile as fetched gets 200, groups in any order; changing groups is 403', async () => {
    const fetched = (await nonAdmin.get('/users/nonroot@jembi.org')).body as User;
    expect((await nonAdmin.put('/users/nonroot@jembi.org', fetched)).status).toBe(200);
    const reordered = { ...fetched, groups: [...fetched.groups].reverse(), surname: 'Renamed' };
    const res = await nonAdmin.put('/users/nonroot@jembi.org', reordered);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ surname: 'Renamed' });
    expect((await nonAdmin.put('/users/nonroot@jembi.org', { ...fetched, groups: ['admin'] })).status).toBe(403);
    expect((await nonAdmin.put('/users/nonroot@jembi.org', { passwordChangeRequired: true })).status).toBe(403);
  });

  it("a document from OpenHIM (its __v, provider, token fields and a foreign _id) is accepted on PUT; _id is ignored", async () => {
    const before = (await c.root.get('/users/bfm@crazy.net')).body as User;
    const res = await c.root.put('/users/bfm@crazy.net', {
      _id: 'not_a_real_id',
      __v: 0,
      provider: 'local',
      token: null,
      tokenType: null,
      expiry: null,
      locked: false,
      surname: 'Murray-Updated',
      msisdn: null,
      dailyReport: null,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ _id: before._id, surname: 'Murray-Updated', dailyReport: before.dailyReport });
    expect(res.body).not.toHaveProperty('msisdn');
  });

  it('keeps OpenHIM\'s permissions: lists and creation for admins, own account for others, the root user undeletable', async () => {
    expect((await nonAdmin.get('/users')).status).toBe(403);
    expect((await nonAdmin.post('/users', { ...invitee, email: 'x@crazy.net' })).status).toBe(403);
    expect((await nonAdmin.get('/users/bfm@crazy.net')).status).toBe(403);
    expect((await nonAdmin.put('/users/bfm@crazy.net', {})).status).toBe(403);
    expect((await nonAdmin.post('/users/bfm@crazy.net/password-token')).status).toBe(403);
    expect((await nonAdmin.get('/users/nonroot@jembi.org')).status).toBe(200);
    expect((await c.root.delete(`/users/${ROOT_EMAIL}`)).status).toBe(403);
    expect((await c.root.get('/users')).status).toBe(200);
  });

  it('still answers 400 for an unknown field or a wrong type, and client-side password hashes are refused with a clear 400', async () => {
    expectRefusalNaming(await c.root.put('/users/bfm@crazy.net', { favouriteColour: 'blue' }), 'body.favouriteColour');
    expectRefusalNaming(await c.root.put('/users/bfm@crazy.net', { locked: 'no' }), 'body.locked');
    expectRefusalNaming(await c.root.put('/users/bfm@crazy.net', { passwordAlgorithm: 'sha512', passwordHash: 'ab', passwordSalt: 'cd' }), 'body.passwordHash');
  });

  it('DELETE /users/:email removes the user', async () => {
    await c.root.post('/users', { ...invitee, email: 'gone@crazy.net' });
    expect((await c.root.delete('/users/gone@crazy.net')).status).toBe(200);
    expect((await c.root.get('/users/gone@crazy.net')).status).toBe(404);
  });

  it('limits reset requests from one address (429 with Retry-After)', async () => {
    // Earlier tests made two requests from this address; the limit is ten an hour.
    const answers: number[] = [];
    for (let i = 0; i < 9; i += 1) answers.push((await c.caller({}).get(`/password-reset-request/flood-${i}@crazy.net`)).status);
    expect(answers.slice(0, 8)).toEqual(Array(8).fill(201));
    expect(answers[8]).toBe(429);
    const limited = await c.caller({}).get('/password-reset-request/nonroot@jembi.org');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Signing in as the console does still works.
    expect((await consoleSession(c, ROOT_EMAIL, NEW_ROOT_PASSWORD)).headers.cookie).toBeDefined();
  });
});
