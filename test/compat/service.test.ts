/**
 * OpenHIM compatibility: the service's own routes as OpenHIM's console and scripts call them: the public
 * `GET /heartbeat`, `GET /about`, and `POST /restart` (admins only; answered first, then the service restarts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompat } from './openhim-caller.js';
import type { CompatJunction } from './openhim-caller.js';
import { sleep } from '../helpers/wait.js';

describe('OpenHIM compatibility: heartbeat, about and restart', () => {
  let c: CompatJunction;
  const restarts: string[] = [];

  beforeAll(async () => {
    c = await startCompat();
    c.t.junction.onRestartRequested((by) => restarts.push(by));
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('GET /heartbeat needs no credentials and answers {master, mediators, now}', async () => {
    const res = await c.caller({}).get('/heartbeat');
    expect(res.status).toBe(200);
    const body = res.body as { master: number; mediators: Record<string, unknown>; now: number };
    expect(typeof body.master).toBe('number');
    expect(body.mediators).toEqual({});
    expect(Math.abs(body.now - Date.now())).toBeLessThan(60_000);
  });

  it('GET /about answers OpenHIM\'s currentCoreVersion and serverTimezone to any user, 401 without credentials', async () => {
    const res = await c.root.get('/about');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ currentCoreVersion: '9.9.9-test', serverTimezone: Intl.DateTimeFormat().resolvedOptions().timeZone });
    const plain = await c.user('about@example.org', ['readers']);
    expect((await plain.get('/about')).status).toBe(200);
    expect((await c.caller({}).get('/about')).status).toBe(401);
  });

  it('POST /restart refuses non-admins (403) and callers without credentials (401), and restarts nothing', async () => {
    const plain = await c.user('no-restart@example.org', ['readers']);
    expect((await plain.post('/restart')).status).toBe(403);
    expect((await c.caller({}).post('/restart')).status).toBe(401);
    await sleep(100);
    expect(restarts).toEqual([]);
  });

  it('POST /restart refuses a body with fields (400), naming the route', async () => {
    const res = await c.root.post('/restart', { now: true });
    expect(res.status).toBe(400);
    expect(res.text).toContain('/restart');
    expect(restarts).toEqual([]);
  });

  it('POST /restart as an admin answers 200 with OpenHIM\'s text, and only then asks for the restart', async () => {
    const res = await c.root.post('/restart', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Server being restarted' });
    await sleep(100);
    expect(restarts).toEqual(['root@junction.local']);
    // A second request while the first is carried out does not restart twice.
    expect((await c.root.post('/restart')).status).toBe(200);
    await sleep(100);
    expect(restarts).toHaveLength(1);
  });
});
