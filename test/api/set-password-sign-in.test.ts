/**
 * Issue 36: following an invitation's set-password link signs the user in. `PUT /token/:token` answers as OpenHIM's
 * does and also sets the session cookie (Secure, HttpOnly, SameSite), once: the link is single-use and time-limited,
 * and the password just chosen meets the first-login change rule, so the session opens the console itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginEvents } from '../helpers/audits.js';
import { sessionCookie, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';

async function invite(t: TestJunction, admin: string, email: string, extra: Record<string, unknown> = {}): Promise<string> {
  const made = await t.inject('/users', { method: 'POST', headers: { authorization: admin }, json: { email, firstname: 'Thabo', surname: 'Nkosi', groups: ['ward'], ...extra } });
  expect(made.status, made.text).toBe(201);
  const link = await t.inject(`/users/${encodeURIComponent(email)}/password-token`, { method: 'POST', headers: { authorization: admin }, json: {} });
  expect(link.status, link.text).toBe(201);
  return (link.body as { token: string }).token;
}

describe('the set-password link signs its user in', () => {
  let t: TestJunction;
  let admin: string;

  beforeAll(async () => {
    t = await startJunction();
    admin = await unlockRoot(t);
  });
  afterAll(async () => t.destroy());

  it('sets a Secure, HttpOnly, SameSite session cookie with the password, which the console then uses', async () => {
    const email = 'pharmacist@clinic.example';
    const token = await invite(t, admin, email);
    // Over a real connection, as the browser sends it.
    const set = await t.request(`/token/${token}`, { method: 'PUT', json: { password: 'pharmacy-own-passphrase', firstname: 'Thabo', surname: 'Nkosi' } });
    expect(set.status, set.text).toBe(200);
    // OpenHIM's answer, unchanged for its console and scripts.
    expect(set.body).toEqual({ message: 'Successfully set new user password.' });
    const header = set.headers.get('set-cookie') ?? '';
    expect(header).toMatch(/HttpOnly/i);
    expect(header).toMatch(/Secure/i);
    expect(header).toMatch(/SameSite=Strict/i);
    expect(header).toMatch(/Path=\//i);
    const cookie = sessionCookie(set);

    const me = await t.request('/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { email, passwordChangeRequired: false, locked: false } });
    // Signed in for real: a route that needs a session answers (a non-admin sees its own account).
    expect((await t.request(`/users/${encodeURIComponent(email)}`, { headers: { cookie } })).status).toBe(200);
    // The session is stored as a digest only, and the sign-in is audited as a login by the link.
    expect(JSON.stringify(await t.junction.store.sessions.find({}))).not.toContain(cookie.split('=')[1] ?? '');
    expect(await loginEvents(t)).toContainEqual({ user: email, outcome: '0', method: 'set-password-link' });
  });

  it('is single-use: the same link again answers 404 and signs nobody in', async () => {
    const token = await invite(t, admin, 'porter@clinic.example');
    const first = await t.inject(`/token/${token}`, { method: 'PUT', json: { password: 'porter-own-passphrase' } });
    expect(first.status).toBe(200);
    const again = await t.inject(`/token/${token}`, { method: 'PUT', json: { password: 'someone-elses-pass-1' } });
    expect(again.status).toBe(404);
    expect(again.headers.get('set-cookie')).toBeNull();
    // Two uses at once: one sets the password and signs in, the other gets 404 and no session.
    const raced = await invite(t, admin, 'cleaner@clinic.example');
    const both = await Promise.all([
      t.inject(`/token/${raced}`, { method: 'PUT', json: { password: 'cleaner-passphrase-1' } }),
      t.inject(`/token/${raced}`, { method: 'PUT', json: { password: 'cleaner-passphrase-2' } }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 404]);
    expect(both.filter((r) => r.headers.get('set-cookie') !== null)).toHaveLength(1);
  });

  it('is time-limited: an expired link answers 410 and signs nobody in', async () => {
    const email = 'late@clinic.example';
    const token = await invite(t, admin, email);
    const user = await t.junction.store.users.findOne({ email });
    await t.junction.store.users.updateById(user?._id ?? '', { set: { tokenExpiry: new Date(Date.now() - 1000) } });
    const late = await t.inject(`/token/${token}`, { method: 'PUT', json: { password: 'a-good-password-123' } });
    expect(late.status).toBe(410);
    expect(late.headers.get('set-cookie')).toBeNull();
  });

  it('signs nobody in when the password is refused by the rules', async () => {
    const email = 'weak@clinic.example';
    const token = await invite(t, admin, email);
    const weak = await t.inject(`/token/${token}`, { method: 'PUT', json: { password: email } });
    expect(weak.status).toBe(400);
    expect(weak.headers.get('set-cookie')).toBeNull();
    // The link still works for a good password.
    expect((await t.inject(`/token/${token}`, { method: 'PUT', json: { password: 'a-good-password-123' } })).status).toBe(200);
  });

  it('meets the first-login change rule: a user made with a forced change and sent a link is not asked again', async () => {
    const email = 'clerk@clinic.example';
    const made = await t.inject('/users', {
      method: 'POST',
      headers: { authorization: admin },
      json: { email, firstname: 'Lindiwe', surname: 'Clerk', groups: ['ward'], password: 'clerk-first-passphrase-1', passwordChangeRequired: true },
    });
    expect(made.status, made.text).toBe(201);
    const link = await t.inject(`/users/${encodeURIComponent(email)}/password-token`, { method: 'POST', headers: { authorization: admin }, json: {} });
    expect(link.status, link.text).toBe(201);
    const token = (link.body as { token: string }).token;
    const set = await t.inject(`/token/${token}`, { method: 'PUT', json: { password: 'clerk-chosen-passphrase' } });
    expect(set.status).toBe(200);
    const cookie = sessionCookie(set);
    expect((await t.inject('/me', { headers: { cookie } })).body).toMatchObject({ user: { email, passwordChangeRequired: false } });
    // Not refused with PASSWORD_CHANGE_REQUIRED: the session works at once.
    expect((await t.inject(`/users/${encodeURIComponent(email)}`, { headers: { cookie } })).status).toBe(200);
  });
});

describe('the set-password link where local sign-in is off', () => {
  let t: TestJunction;
  let admin: string;

  beforeAll(async () => {
    t = await startJunction({ api: { authenticationTypes: ['basic'] } });
    admin = await unlockRoot(t);
  });
  afterAll(async () => t.destroy());

  it('sets the password but starts no session: the configured sign-in ways are kept', async () => {
    const token = await invite(t, admin, 'basic-only@clinic.example');
    const set = await t.inject(`/token/${token}`, { method: 'PUT', json: { password: 'basic-only-passphrase' } });
    expect(set.status).toBe(200);
    expect(set.headers.get('set-cookie')).toBeNull();
  });
});
