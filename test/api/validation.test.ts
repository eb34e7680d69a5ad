import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';

const valid = { email: 'dan@clinic.example', firstname: 'Dan', surname: 'Doctor', groups: ['doctors'], password: 'dan-password-12' };

describe('bad input on the management API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  beforeAll(async () => {
    t = await startJunction({ api: { bodyLimitBytes: 4096 } });
    admin = { authorization: await unlockRoot(t) };
  });
  afterAll(async () => t.destroy());

  const cases: { name: string; body: string; code: string; path?: string }[] = [
    { name: 'malformed JSON', body: '{"email": "x@y.example",', code: 'INVALID_JSON' },
    { name: 'a JSON array instead of an object', body: '[]', code: 'VALIDATION_FAILED', path: 'body' },
    { name: 'an unknown field', body: JSON.stringify({ ...valid, isAdmin: true }), code: 'VALIDATION_FAILED', path: 'body.isAdmin' },
    { name: 'a wrong type', body: JSON.stringify({ ...valid, dailyReport: 'yes' }), code: 'VALIDATION_FAILED', path: 'body.dailyReport' },
    { name: 'a string where an array belongs', body: JSON.stringify({ ...valid, groups: 'doctors' }), code: 'VALIDATION_FAILED', path: 'body.groups' },
    { name: 'a missing required field', body: JSON.stringify({ ...valid, email: undefined }), code: 'VALIDATION_FAILED', path: 'body.email' },
    { name: 'an invalid email', body: JSON.stringify({ ...valid, email: 'not-an-email' }), code: 'VALIDATION_FAILED', path: 'body.email' },
    { name: 'a prototype-polluting key', body: '{"__proto__": {"groups": ["admin"]}}', code: 'INVALID_JSON' },
  ];

  for (const c of cases) {
    it(`answers ${c.name} with 400 ${c.code} and writes nothing`, async () => {
      const before = await t.junction.store.users.count({});
      const res = await t.inject('/users', { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: c.body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: c.code, message: expect.any(String) as string } });
      if (c.path !== undefined) {
        expect((res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path)).toContain(c.path);
        expect((res.body as { error: { message: string } }).error.message).toContain(c.path);
      }
      expect(await t.junction.store.users.count({})).toBe(before);
    });
  }

  it('rejects unknown query parameters and bad path parameters with 400', async () => {
    const query = await t.inject('/users?limit=5', { headers: admin });
    expect(query.status).toBe(400);
    expect(query.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ path: 'querystring.limit' }] } });
    const param = await t.inject('/users/not-an-email', { headers: admin });
    expect(param.status).toBe(400);
    expect(param.body).toMatchObject({ error: { details: [{ path: 'params.email' }] } });
  });

  it('answers an empty update with 200 and changes nothing, as OpenHIM does', async () => {
    const before = await t.inject('/users/root@junction.local', { headers: admin });
    const res = await t.inject('/users/root@junction.local', { method: 'PUT', headers: admin, json: {} });
    expect(res.status).toBe(200);
    expect({ ...(res.body as object), updatedAt: null }).toEqual({ ...(before.body as object), updatedAt: null });
  });

  it('answers a body over the limit with 413', async () => {
    const res = await t.inject('/users', { method: 'POST', headers: admin, json: { ...valid, settings: { blob: 'x'.repeat(8000) } } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { code: 'BODY_TOO_LARGE' } });
  });

  it('answers a non-JSON body with 415', async () => {
    const res = await t.inject('/users', { method: 'POST', headers: { ...admin, 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('answers an empty JSON body with 400', async () => {
    const res = await t.inject('/users', { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '' });
    expect(res.status).toBe(400);
  });

  it('answers unknown routes with the JSON 404 shape', async () => {
    const res = await t.inject('/nothing-here', { headers: admin });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('answers a malformed Basic header and a malformed login body with 4xx', async () => {
    expect((await t.inject('/users', { headers: { authorization: 'Basic !!!' } })).status).toBe(401);
    expect((await t.inject('/users', { headers: { authorization: 'Basic bm9jb2xvbg==' } })).status).toBe(401);
    const login = await t.inject('/authenticate/local', { method: 'POST', json: { username: 5, password: null } });
    expect(login.status).toBe(400);
  });

  it('never logged a 500 during these tests', () => {
    expect(t.logs.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });
});
