/**
 * OpenID Connect sign-in through the whole authorization code flow, against a real provider (oidc-provider) in its
 * own process: the start, the provider's login and consent, and `POST /authenticate/openid` with what it sent back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEW_ROOT_PASSWORD, ROOT_EMAIL, startJunction, unlockRoot } from '../helpers/junction.js';
import { loginEvents } from '../helpers/audits.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { freePorts } from '../helpers/process.js';
import { signInAtProvider, startProvider } from '../openid/provider.js';
import type { TestProvider } from '../openid/provider.js';

const CLIENT_SECRET = 'a-client-secret-for-the-tests-only';

const ACCOUNTS = {
  alice: { email: 'Alice@Clinic.example', given_name: 'Alice', family_name: 'Mwangi', groups: ['clinic-admins', 'nurses'] },
  bob: { email: 'bob@clinic.example', name: 'Bob van Dijk', resource_access: { junction: { roles: ['records'] } } },
  nomail: { name: 'No Mail' },
};

interface Started {
  url: string;
  cookie: string;
}

async function start(t: TestJunction): Promise<Started> {
  const answer = await t.request('/authenticate/openid/start');
  expect(answer.status).toBe(200);
  const setCookie = answer.headers.getSetCookie().find((c) => c.startsWith('junction.openid='));
  expect(setCookie).toMatch(/HttpOnly/i);
  return { url: (answer.body as { url: string }).url, cookie: (setCookie ?? '').split(';')[0] ?? '' };
}

/** Starts a sign-in, signs in at the provider as `login`, and returns what the provider sent back. */
async function throughProvider(t: TestJunction, login: string, tamper: (url: URL) => void = () => undefined) {
  const started = await start(t);
  const url = new URL(started.url);
  tamper(url);
  const back = await signInAtProvider(url.href, login, `${t.url}/`);
  const params = back.searchParams;
  return { cookie: started.cookie, body: { code: params.get('code') ?? '', state: params.get('state') ?? '', sessionState: params.get('session_state') } };
}

/** The session cookie an answer set (it also clears the sign-in's own cookie). */
function sessionCookie(answer: TestResponse): string {
  const found = answer.headers.getSetCookie().find((c) => c.startsWith('junction.sid='));
  if (found === undefined) throw new Error(`no session cookie in ${answer.status} ${answer.text}`);
  return found.split(';')[0] ?? '';
}

function finish(t: TestJunction, body: unknown, cookie?: string): Promise<TestResponse> {
  return t.request('/authenticate/openid', { method: 'POST', json: body, headers: cookie === undefined ? {} : { cookie } });
}

describe('OpenID Connect sign-in', () => {
  let provider: TestProvider;
  let creating: TestJunction;
  let strict: TestJunction;

  beforeAll(async () => {
    const [port = 0] = await freePorts(1);
    const issuerUrl = `http://127.0.0.1:${port}`;
    const openid = { issuerUrl, clientId: 'junction', clientSecret: CLIENT_SECRET, scope: 'openid email profile groups', displayName: 'Clinic SSO' };
    creating = await startJunction({
      api: { authenticationTypes: ['basic', 'local', 'openid'], openid: { ...openid, groupsClaim: 'groups', adminGroups: ['clinic-admins'], createUsers: true } },
    });
    strict = await startJunction({ api: { authenticationTypes: ['basic', 'local', 'openid'], openid: { ...openid, scope: 'openid email profile roles', groupsClaim: 'resource_access.junction.roles' } } });
    provider = await startProvider({
      port,
      client: { client_id: 'junction', client_secret: CLIENT_SECRET, redirect_uris: [`${creating.url}/`, `${strict.url}/`] },
      accounts: ACCOUNTS,
    });
  });
  afterAll(async () => {
    await Promise.all([creating?.destroy(), strict?.destroy()]);
    await provider?.stop();
  });

  it('says openid is on and gives the button its name', async () => {
    expect((await creating.request('/authentication/api-types')).body).toEqual(['basic', 'local', 'openid']);
    expect((await creating.request('/authentication/openid')).body).toEqual({ displayName: 'Clinic SSO' });
  });

  it('signs a new user in through the code flow, creating them with groups from the claim path (admin mapped)', async () => {
    const back = await throughProvider(creating, 'alice');
    const answer = await finish(creating, back.body, back.cookie);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      result: 'User authenticated successfully',
      user: { email: 'alice@clinic.example', firstname: 'Alice', surname: 'Mwangi', groups: ['admin', 'nurses'], provider: 'openid', locked: false, passwordChangeRequired: false },
    });
    // The session cookie is the one local login sets, and works for admin routes.
    const cookie = sessionCookie(answer);
    expect((await creating.request('/me', { headers: { cookie } })).body).toMatchObject({ user: { email: 'alice@clinic.example' } });
    expect((await creating.request('/users', { headers: { cookie } })).status).toBe(200);
    expect(await loginEvents(creating)).toContainEqual({ user: 'alice@clinic.example', outcome: '0', method: 'openid' });
  });

  it('refuses a replayed code: the same state again, and the code under a fresh state', async () => {
    const back = await throughProvider(creating, 'alice');
    expect((await finish(creating, back.body, back.cookie)).status).toBe(200);
    const again = await finish(creating, back.body, back.cookie);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: { code: 'OPENID_STATE_INVALID', message: expect.stringMatching(/used already/) as string } });
    // A fresh, honest state with the spent code: the provider refuses the code, and Junction says so cleanly.
    const fresh = await start(creating);
    const state = new URL(fresh.url).searchParams.get('state');
    const replay = await finish(creating, { ...back.body, state }, fresh.cookie);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ error: { code: 'OPENID_REFUSED', message: expect.stringMatching(/invalid_grant/) as string } });
  });

  it('refuses a forged state and a state finished in another browser', async () => {
    const back = await throughProvider(creating, 'alice');
    const forged = await finish(creating, { ...back.body, state: 'forged-state-value' }, back.cookie);
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ error: { code: 'OPENID_STATE_INVALID' } });

    const other = await throughProvider(creating, 'alice');
    const noCookie = await finish(creating, other.body);
    expect(noCookie.status).toBe(400);
    expect(noCookie.body).toMatchObject({ error: { code: 'OPENID_STATE_INVALID', message: expect.stringMatching(/another browser/) as string } });
    // Refused once, the state is spent: the right browser cannot use it afterwards either.
    expect((await finish(creating, other.body, other.cookie)).status).toBe(400);
    expect(await loginEvents(creating)).toContainEqual({ user: 'anonymous', outcome: '4', method: 'openid' });
  });

  it('refuses an ID token whose nonce is not the one this sign-in asked for', async () => {
    const back = await throughProvider(creating, 'alice', (url) => url.searchParams.set('nonce', 'a-nonce-junction-never-made'));
    const answer = await finish(creating, back.body, back.cookie);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 'OPENID_REFUSED', message: expect.stringMatching(/nonce/) as string } });
  });

  it('refuses claims without an email', async () => {
    const back = await throughProvider(creating, 'nomail');
    const answer = await finish(creating, back.body, back.cookie);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 'OPENID_REFUSED', message: expect.stringMatching(/email/) as string } });
  });

  it('with createUsers off, refuses an unknown user with 403 and signs in one an admin created, groups from a nested claim', async () => {
    const unknown = await throughProvider(strict, 'bob');
    const refused = await finish(strict, unknown.body, unknown.cookie);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'OPENID_USER_UNKNOWN', message: expect.stringMatching(/bob@clinic\.example.*createUsers/) as string } });
    expect(await loginEvents(strict)).toContainEqual({ user: 'bob@clinic.example', outcome: '4', method: 'openid' });

    const admin = sessionCookie(await (async () => {
      await unlockRoot(strict);
      return strict.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    })());
    const created = await strict.request('/users', { method: 'POST', headers: { cookie: admin }, json: { email: 'bob@clinic.example', firstname: 'Bob', surname: 'B', groups: ['someone'], password: 'a-long-enough-password-7' } });
    expect(created.status).toBe(201);
    const back = await throughProvider(strict, 'bob');
    const answer = await finish(strict, back.body, back.cookie);
    expect(answer.status).toBe(200);
    // An existing local user keeps their names and password; only the groups follow the provider.
    expect(answer.body).toMatchObject({ user: { email: 'bob@clinic.example', firstname: 'Bob', groups: ['records'] } });
    expect((answer.body as { user: Record<string, unknown> }).user.provider).toBeUndefined();
  });

  it('refuses to set a password by token for a user who signs in with OpenID', async () => {
    const admin = sessionCookie(await creating.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } }).then(async (r) => {
      if (r.status === 200) return r;
      await unlockRoot(creating);
      return creating.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    }));
    const issued = await creating.request(`/users/${encodeURIComponent('alice@clinic.example')}/password-token`, { method: 'POST', headers: { cookie: admin, 'x-requested-with': 'junction-console' } });
    expect(issued.status).toBe(201);
    const set = await creating.request(`/token/${(issued.body as { token: string }).token}`, { method: 'PUT', json: { password: 'a-long-enough-password-7' } });
    expect(set.status).toBe(403);
    expect(set.body).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringMatching(/OpenID/) as string } });

    // A forced password change cannot apply to someone with no password here: the next sign-in clears it.
    const forced = await creating.request(`/users/${encodeURIComponent('alice@clinic.example')}`, { method: 'PUT', headers: { cookie: admin }, json: { passwordChangeRequired: true } });
    expect(forced.status).toBe(200);
    const back = await throughProvider(creating, 'alice');
    const answer = await finish(creating, back.body, back.cookie);
    expect(answer.body).toMatchObject({ user: { passwordChangeRequired: false } });
    expect((await creating.request('/channels', { headers: { cookie: sessionCookie(answer) } })).status).toBe(200);
  });

  it('refuses OpenID routes with 401 when the type is off, and malformed bodies with 400', async () => {
    const off = await startJunction();
    try {
      expect((await off.inject('/authenticate/openid/start')).body).toMatchObject({ error: { code: 'AUTH_TYPE_DISABLED' } });
      expect((await off.inject('/authenticate/openid', { method: 'POST', json: { code: 'c', state: 's' } })).status).toBe(401);
    } finally {
      await off.destroy();
    }
    const bad = await creating.inject('/authenticate/openid', { method: 'POST', json: { code: 'c' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});
