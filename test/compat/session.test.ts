/** OpenHIM compatibility: the session routes as OpenHIM's console calls them (`/authenticate/local`, `/me`, `/logout`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSession, NEW_ROOT_PASSWORD, ROOT_EMAIL, startCompat } from './openhim-caller.js';
import type { CompatJunction } from './openhim-caller.js';

describe('OpenHIM compatibility: session routes', () => {
  let c: CompatJunction;

  beforeAll(async () => {
    c = await startCompat();
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('POST /authenticate/local answers {result, user} and sets a session cookie', async () => {
    const res = await c.t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    expect(res.status).toBe(200);
    const body = res.body as { result: string; user: Record<string, unknown> };
    expect(body.result).toBe('User authenticated successfully');
    expect(body.user).toMatchObject({ email: ROOT_EMAIL, groups: expect.arrayContaining(['admin']) as unknown });
    expect(body.user).not.toHaveProperty('passwordHash');
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/i);
  });

  it('a wrong password is 401, as in OpenHIM', async () => {
    const res = await c.t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: 'not-the-password' } });
    expect(res.status).toBe(401);
  });

  it('GET /me answers {user} inside a session and 404 outside one', async () => {
    const session = await consoleSession(c, ROOT_EMAIL, NEW_ROOT_PASSWORD);
    const me = await session.get('/me');
    expect(me.status).toBe(200);
    expect((me.body as { user: { email: string } }).user.email).toBe(ROOT_EMAIL);
    expect((await c.caller({}).get('/me')).status).toBe(404);
  });

  it('GET /logout ends the session', async () => {
    const session = await consoleSession(c, ROOT_EMAIL, NEW_ROOT_PASSWORD);
    expect((await session.get('/logout')).status).toBe(200);
    expect((await session.get('/me')).status).toBe(404);
    expect((await session.get('/channels')).status).toBe(401);
  });
});
