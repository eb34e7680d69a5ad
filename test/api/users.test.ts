import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, DEFAULT_ROOT_PASSWORD, NEW_ROOT_PASSWORD, ROOT_EMAIL, sessionCookie, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';

const alice = {
  email: 'Alice@Clinic.example',
  firstname: 'Alice',
  surname: 'Nurse',
  groups: ['nurses'],
  password: 'alice-password-1',
  msisdn: '+27820000000',
  dailyReport: true,
};

describe('first run and the super user', () => {
  let t: TestJunction;
  beforeAll(async () => {
    t = await startJunction();
  });
  afterAll(async () => t.destroy());

  it('forces the default super user to change the password before anything else', async () => {
    const auth = { authorization: basic(ROOT_EMAIL, DEFAULT_ROOT_PASSWORD) };
    const list = await t.inject('/users', { headers: auth });
    expect(list.status).toBe(403);
    expect(list.body).toMatchObject({ error: { code: 'PASSWORD_CHANGE_REQUIRED' } });

    const about = await t.inject('/about', { headers: auth });
    expect(about.status).toBe(403);

    // /me and logout stay reachable, and /me says a change is needed.
    const me = await t.inject('/me', { headers: auth });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { email: ROOT_EMAIL, passwordChangeRequired: true, builtin: true, groups: ['admin'] } });
    expect((await t.inject('/logout', { headers: auth })).status).toBe(200);

    // Anything but the own password is refused, even on the own record.
    const rename = await t.inject(`/users/${ROOT_EMAIL}`, { method: 'PUT', headers: auth, json: { firstname: 'Root' } });
    expect(rename.status).toBe(403);
    expect(rename.body).toMatchObject({ error: { code: 'PASSWORD_CHANGE_REQUIRED' } });

    // The default password cannot be "changed" to itself.
    const same = await t.inject(`/users/${ROOT_EMAIL}`, { method: 'PUT', headers: auth, json: { password: DEFAULT_ROOT_PASSWORD } });
    expect(same.status).toBe(400);
    expect(same.body).toMatchObject({ error: { code: 'PASSWORD_TOO_WEAK' } });

    const short = await t.inject(`/users/${ROOT_EMAIL}`, { method: 'PUT', headers: auth, json: { password: 'short' } });
    expect(short.status).toBe(400);

    const changed = await t.inject(`/users/${ROOT_EMAIL}`, { method: 'PUT', headers: auth, json: { password: NEW_ROOT_PASSWORD } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ passwordChangeRequired: false });
    expect(changed.text).not.toMatch(/passwordHash|scrypt|legacyToken/);

    expect((await t.inject('/users', { headers: auth })).status).toBe(401);
    const after = await t.inject('/users', { headers: { authorization: basic(ROOT_EMAIL, NEW_ROOT_PASSWORD) } });
    expect(after.status).toBe(200);
  });

  it('also forces the change for a local session, then lets the session continue', async () => {
    const fresh = await startJunction();
    try {
      const login = await fresh.inject('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: DEFAULT_ROOT_PASSWORD } });
      expect(login.status).toBe(200);
      expect(login.body).toMatchObject({ user: { passwordChangeRequired: true } });
      const cookie = sessionCookie(login);
      expect((await fresh.inject('/users', { headers: { cookie } })).status).toBe(403);
      const change = await fresh.inject(`/users/${ROOT_EMAIL}`, { method: 'PUT', headers: { cookie }, json: { password: NEW_ROOT_PASSWORD } });
      expect(change.status).toBe(200);
      expect((await fresh.inject('/users', { headers: { cookie } })).status).toBe(200);
    } finally {
      await fresh.destroy();
    }
  });
});

describe('users API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
  });
  afterAll(async () => t.destroy());

  it('lets an admin create, read, update and delete a user', async () => {
    const created = await t.inject('/users', { method: 'POST', headers: admin, json: alice });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'alice@clinic.example', groups: ['nurses'], msisdn: '+27820000000', dailyReport: true, weeklyReport: false });
    expect(created.text).not.toMatch(/password"|passwordHash|scrypt/);

    const list = await t.inject('/users', { headers: admin });
    expect((list.body as { email: string }[]).map((u) => u.email)).toEqual(['alice@clinic.example', ROOT_EMAIL]);

    // Lookup by email ignores case.
    const fetched = await t.inject('/users/ALICE@clinic.example', { headers: admin });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ firstname: 'Alice' });

    const updated = await t.inject('/users/alice@clinic.example', {
      method: 'PUT',
      headers: admin,
      json: { surname: 'Sister', groups: ['nurses', 'reception'], settings: { filter: { status: 'Failed' } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ surname: 'Sister', groups: ['nurses', 'reception'], settings: { filter: { status: 'Failed' } } });
    const cleared = await t.inject('/users/alice@clinic.example', { method: 'PUT', headers: admin, json: { msisdn: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('msisdn');

    const duplicate = await t.inject('/users', { method: 'POST', headers: admin, json: { ...alice, email: 'alice@clinic.example' } });
    expect(duplicate.status).toBe(409);

    const removed = await t.inject('/users/alice@clinic.example', { method: 'DELETE', headers: admin });
    expect(removed.status).toBe(200);
    expect((await t.inject('/users/alice@clinic.example', { headers: admin })).status).toBe(404);
    expect((await t.inject('/users/alice@clinic.example', { method: 'DELETE', headers: admin })).status).toBe(404);
  });

  it('refuses to delete the built-in super user or take away its admin group', async () => {
    const del = await t.inject(`/users/${ROOT_EMAIL}`, { method: 'DELETE', headers: admin });
    expect(del.status).toBe(403);
    expect(del.body).toMatchObject({ error: { code: 'BUILTIN_USER_PROTECTED' } });
    const demote = await t.inject(`/users/${ROOT_EMAIL}`, { method: 'PUT', headers: admin, json: { groups: ['staff'] } });
    expect(demote.status).toBe(403);
    expect((await t.inject(`/users/${ROOT_EMAIL}`, { headers: admin })).body).toMatchObject({ groups: ['admin'] });
  });

  it('limits a non-admin to reading and updating their own profile and password', async () => {
    const bob = { ...alice, email: 'bob@clinic.example', firstname: 'Bob', password: 'bob-password-12' };
    expect((await t.inject('/users', { method: 'POST', headers: admin, json: bob })).status).toBe(201);
    const other = { ...alice, email: 'carol@clinic.example', password: 'carol-password-1' };
    expect((await t.inject('/users', { method: 'POST', headers: admin, json: other })).status).toBe(201);
    const asBob = { authorization: basic('bob@clinic.example', 'bob-password-12') };

    expect((await t.inject('/users', { headers: asBob })).status).toBe(403);
    expect((await t.inject('/users', { method: 'POST', headers: asBob, json: { ...alice, email: 'x@y.example' } })).status).toBe(403);
    expect((await t.inject('/users/carol@clinic.example', { headers: asBob })).status).toBe(403);
    expect((await t.inject('/users/nobody@clinic.example', { headers: asBob })).status).toBe(403);
    expect((await t.inject('/users/carol@clinic.example', { method: 'PUT', headers: asBob, json: { firstname: 'X' } })).status).toBe(403);
    expect((await t.inject('/users/carol@clinic.example', { method: 'DELETE', headers: asBob })).status).toBe(403);
    expect((await t.inject('/users/bob@clinic.example', { method: 'DELETE', headers: asBob })).status).toBe(403);

    const own = await t.inject('/users/bob@clinic.example', { headers: asBob });
    expect(own.status).toBe(200);
    const escalate = await t.inject('/users/bob@clinic.example', { method: 'PUT', headers: asBob, json: { groups: ['admin'] } });
    expect(escalate.status).toBe(403);
    // Sending back the groups unchanged (as a form does) is fine.
    const profile = await t.inject('/users/bob@clinic.example', { method: 'PUT', headers: asBob, json: { firstname: 'Robert', groups: ['nurses'] } });
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ firstname: 'Robert', groups: ['nurses'] });

    const password = await t.inject('/users/bob@clinic.example', { method: 'PUT', headers: asBob, json: { password: 'bob-new-password-2' } });
    expect(password.status).toBe(200);
    expect((await t.inject('/users/bob@clinic.example', { headers: asBob })).status).toBe(401);
    expect((await t.inject('/users/bob@clinic.example', { headers: { authorization: basic('bob@clinic.example', 'bob-new-password-2') } })).status).toBe(200);
  });

  it('stores passwords as scrypt hashes only', async () => {
    const stored = await t.junction.store.users.findOne({ email: 'carol@clinic.example' });
    expect(stored?.passwordHash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(JSON.stringify(stored)).not.toContain('carol-password-1');
    expect(stored?.legacyToken).toBeUndefined();
  });
});
