import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, DEFAULT_ROOT_PASSWORD, NEW_ROOT_PASSWORD, ROOT_EMAIL, sessionCookie, startJunction, unlockRoot } from '../helpers/junction.js';
import { loginEvents } from '../helpers/audits.js';
import type { TestJunction } from '../helpers/junction.js';

const sha512 = (text: string) => createHash('sha512').update(text).digest('hex');

describe('local login sessions', () => {
  let t: TestJunction;
  beforeAll(async () => {
    t = await startJunction();
    await unlockRoot(t);
  });
  afterAll(async () => t.destroy());

  it('sets a Secure, HttpOnly, SameSite session cookie that authenticates later requests', async () => {
    const login = await t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    expect(login.status).toBe(200);
    // OpenHIM's shape, which its console and scripts read: a confirmation and the user under `user`.
    expect(login.body).toMatchObject({ result: 'User authenticated successfully', user: { email: ROOT_EMAIL } });
    const header = login.headers.get('set-cookie') ?? '';
    expect(header).toMatch(/HttpOnly/i);
    expect(header).toMatch(/Secure/i);
    expect(header).toMatch(/SameSite=Strict/i);
    const cookie = sessionCookie(login);
    const me = await t.request('/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user: expect.objectContaining({ email: ROOT_EMAIL }) as unknown });
    expect((await t.request('/users', { headers: { cookie } })).status).toBe(200);

    // The stored session holds only a digest of the cookie value.
    const token = cookie.split('=')[1] ?? '';
    const stored = await t.junction.store.sessions.find({});
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(token);

    const out = await t.request('/logout', { headers: { cookie } });
    expect(out.status).toBe(200);
    expect((await t.request('/users', { headers: { cookie } })).status).toBe(401);
    expect((await t.request('/me', { headers: { cookie } })).status).toBe(404);
  });

  it('refuses a wrong password with 401 and the JSON error shape, and audits both outcomes', async () => {
    const wrong = await t.inject('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: 'nope-nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: { code: 'INVALID_CREDENTIALS', message: expect.any(String) as string, details: null } });
    const unknown = await t.inject('/authenticate/local', { method: 'POST', json: { username: 'ghost@x.example', password: 'whatever-123' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: { code: 'INVALID_CREDENTIALS' } });
    const events = await loginEvents(t);
    expect(events).toContainEqual({ user: ROOT_EMAIL, outcome: '0', method: 'local' });
    expect(events).toContainEqual({ user: ROOT_EMAIL, outcome: '4', method: 'local' });
    expect(events).toContainEqual({ user: 'ghost@x.example', outcome: '4', method: 'local' });
  });

  it('answers 401 with a Basic challenge when no credentials are given', async () => {
    const res = await t.inject('/users');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(res.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
  });

  it('keeps sessions across a restart', async () => {
    const dataDir = t.dataDir;
    const login = await t.inject('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    const cookie = sessionCookie(login);
    await t.stop();
    t = await startJunction({}, { dataDir });
    const me = await t.inject('/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user: expect.objectContaining({ email: ROOT_EMAIL }) as unknown });
  });
});

describe('failed-login throttling', () => {
  let t: TestJunction;
  beforeAll(async () => {
    t = await startJunction({ api: { loginThrottle: { maxFailuresPerAccount: 3, maxFailuresPerAddress: 100, windowSeconds: 600 } } });
  });
  afterAll(async () => t.destroy());

  it('answers 429 with Retry-After once an account has too many failures, even for the right password', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.inject('/users', { headers: { authorization: basic(ROOT_EMAIL, `wrong-${i}-password`) } });
      expect(res.status).toBe(401);
    }
    const blocked = await t.inject('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: DEFAULT_ROOT_PASSWORD } });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ error: { code: 'TOO_MANY_ATTEMPTS' } });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
    // Another account from the same address is unaffected.
    const other = await t.inject('/authenticate/local', { method: 'POST', json: { username: 'someone@x.example', password: 'whatever-123' } });
    expect(other.status).toBe(401);
  });

  it('throttles per address across accounts', async () => {
    const t2 = await startJunction({ api: { loginThrottle: { maxFailuresPerAccount: 100, maxFailuresPerAddress: 2, windowSeconds: 60 } } });
    try {
      for (const user of ['a@x.example', 'b@x.example']) {
        expect((await t2.inject('/authenticate/local', { method: 'POST', json: { username: user, password: 'bad-password' } })).status).toBe(401);
      }
      const third = await t2.inject('/authenticate/local', { method: 'POST', json: { username: 'c@x.example', password: 'bad-password' } });
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await t2.destroy();
    }
  });
});

describe('the deprecated token scheme', () => {
  let t: TestJunction;
  beforeAll(async () => {
    t = await startJunction({ api: { authenticationTypes: ['basic', 'local', 'token'] } });
  });
  afterAll(async () => t.destroy());

  async function tokenHeaders(password: string, tsOffsetMs = 0) {
    const step1 = await t.inject(`/authenticate/${ROOT_EMAIL}`);
    expect(step1.status).toBe(200);
    const { salt, ts } = step1.body as { salt: string; ts: string };
    expect(typeof ts).toBe('string');
    const passwordhash = sha512(salt + password);
    const authTs = new Date(Date.now() + tsOffsetMs).toISOString();
    const authSalt = randomUUID();
    return { 'auth-username': ROOT_EMAIL, 'auth-ts': authTs, 'auth-salt': authSalt, 'auth-token': sha512(passwordhash + authSalt + authTs) };
  }

  it('authenticates with the four auth-* headers and refuses stale, wrong or replayed tokens', async () => {
    await unlockRoot(t);
    const good = await tokenHeaders(NEW_ROOT_PASSWORD);
    const ok = await t.inject('/users', { headers: good });
    expect(ok.status).toBe(200);
    const replay = await t.inject('/users', { headers: good });
    expect(replay.status).toBe(401);

    const stale = await tokenHeaders(NEW_ROOT_PASSWORD, -2500);
    expect((await t.inject('/users', { headers: stale })).status).toBe(401);
    const wrong = await tokenHeaders('not-the-password');
    const refused = await t.inject('/users', { headers: wrong });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
    const partial = await t.inject('/users', { headers: { 'auth-username': ROOT_EMAIL } });
    expect(partial.status).toBe(401);
  });

  it('answers 404 for a user without a token credential', async () => {
    expect((await t.inject('/authenticate/nobody@x.example')).status).toBe(404);
  });
});

describe('turning the token scheme on for existing accounts', () => {
  it('locks nobody out: a sign-in with the password makes the token credential, and an admin may set the same password again', async () => {
    const first = await startJunction();
    const dataDir = first.dataDir;
    const admin = await unlockRoot(first);
    const mediator = { email: 'lab-mediator@clinic.example', firstname: 'Lab', surname: 'Mediator', groups: ['admin'], password: 'mediator-password-1' };
    const other = { ...mediator, email: 'xray-mediator@clinic.example', password: 'mediator-password-2' };
    for (const user of [mediator, other]) expect((await first.request('/users', { method: 'POST', headers: { authorization: admin }, json: user })).status).toBe(201);
    await first.stop();

    const t = await startJunction({ api: { authenticationTypes: ['basic', 'local', 'token'] } }, { dataDir });
    try {
      const tokenHeaders = async (email: string, password: string) => {
        const step1 = await t.request(`/authenticate/${email}`);
        expect(step1.status, step1.text).toBe(200);
        const { salt } = step1.body as { salt: string };
        const authTs = new Date().toISOString();
        const authSalt = randomUUID();
        return { 'auth-username': email, 'auth-ts': authTs, 'auth-salt': authSalt, 'auth-token': sha512(sha512(salt + password) + authSalt + authTs) };
      };
      // Set before the scheme was on: no credential yet, and the answer says how one is made.
      const none = await t.request(`/authenticate/${mediator.email}`);
      expect(none.status).toBe(404);
      expect(none.text).toMatch(/signs in with the password/);
      // The mediator's Basic calls go on working, unasked to change anything, and make the credential.
      const basicCall = await t.request('/users', { headers: { authorization: basic(mediator.email, mediator.password) } });
      expect(basicCall.status).toBe(200);
      expect((await t.request('/users', { headers: await tokenHeaders(mediator.email, mediator.password) })).status).toBe(200);
      // A local sign-in does the same for the super user.
      expect((await t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } })).status).toBe(200);
      expect((await t.request('/me', { headers: await tokenHeaders(ROOT_EMAIL, NEW_ROOT_PASSWORD) })).status).toBe(200);
      // A mediator that speaks only the token scheme: its admin sets the same password again, which is accepted.
      const same = await t.request(`/users/${other.email}`, { method: 'PUT', headers: { authorization: admin }, json: { password: other.password } });
      expect(same.status, same.text).toBe(200);
      expect(same.body).toMatchObject({ passwordChangeRequired: false });
      expect((await t.request('/users', { headers: await tokenHeaders(other.email, other.password) })).status).toBe(200);
      // With the credential made, and for a forced change, a new password must differ again.
      const twice = await t.request(`/users/${other.email}`, { method: 'PUT', headers: { authorization: admin }, json: { password: other.password } });
      expect(twice.body).toMatchObject({ error: { code: 'PASSWORD_TOO_WEAK' } });
      const forced = await t.request(`/users/${other.email}`, { method: 'PUT', headers: { authorization: admin }, json: { passwordChangeRequired: true } });
      expect(forced.status).toBe(200);
      const again = await t.request(`/users/${other.email}`, { method: 'PUT', headers: { authorization: basic(other.email, other.password) }, json: { password: other.password } });
      expect(again.body).toMatchObject({ error: { code: 'PASSWORD_TOO_WEAK' } });
    } finally {
      await t.destroy();
    }
  });
});

describe('authentication types are a config list', () => {
  it('refuses Basic and the token scheme when only local login is enabled, and reports the types', async () => {
    const t = await startJunction({ api: { authenticationTypes: ['local'] } });
    try {
      // The sign-in types are public; the client types (OpenHIM's /authentication/types) are for admins only.
      const types = await t.inject('/authentication/api-types');
      expect(types.body).toEqual(['local']);
      expect((await t.inject('/authentication/types')).status).toBe(401);
      const res = await t.inject('/users', { headers: { authorization: basic(ROOT_EMAIL, DEFAULT_ROOT_PASSWORD) } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'AUTH_TYPE_DISABLED' } });
      expect((await t.inject(`/authenticate/${ROOT_EMAIL}`)).status).toBe(404);
      // No legacy credential is kept while the token scheme is off.
      const root = await t.junction.store.users.findOne({ email: ROOT_EMAIL });
      expect(root?.legacyToken).toBeUndefined();
    } finally {
      await t.destroy();
    }
  });

  it('refuses local login when only Basic is enabled', async () => {
    const t = await startJunction({ api: { authenticationTypes: ['basic'] } });
    try {
      const res = await t.inject('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: DEFAULT_ROOT_PASSWORD } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'AUTH_TYPE_DISABLED' } });
    } finally {
      await t.destroy();
    }
  });
});

describe('pre-seeded admin password', () => {
  it('skips the forced change when JUNCTION_ADMIN_PASSWORD is set, and never overrides a changed password', async () => {
    const t = await startJunction({}, { env: { JUNCTION_ADMIN_PASSWORD: 'unattended-secret-1' } });
    const dataDir = t.dataDir;
    try {
      const res = await t.inject('/users', { headers: { authorization: basic(ROOT_EMAIL, 'unattended-secret-1') } });
      expect(res.status).toBe(200);
      expect((await t.inject('/users', { headers: { authorization: basic(ROOT_EMAIL, DEFAULT_ROOT_PASSWORD) } })).status).toBe(401);
      const change = await t.inject(`/users/${ROOT_EMAIL}`, {
        method: 'PUT',
        headers: { authorization: basic(ROOT_EMAIL, 'unattended-secret-1') },
        json: { password: 'changed-by-admin-2' },
      });
      expect(change.status).toBe(200);
    } finally {
      await t.stop();
    }
    const again = await startJunction({}, { dataDir, env: { JUNCTION_ADMIN_PASSWORD: 'unattended-secret-1' } });
    try {
      expect((await again.inject('/users', { headers: { authorization: basic(ROOT_EMAIL, 'changed-by-admin-2') } })).status).toBe(200);
    } finally {
      await again.destroy();
    }
  });
});
