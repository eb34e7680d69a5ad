/** A client that stalls mid-request on the management API is answered 408 and cut off, not held forever. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, ROOT_EMAIL } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { rawRequest } from './raw-http.js';

describe('management API idle deadline', () => {
  let t: TestJunction;
  beforeAll(async () => {
    t = await startJunction({ api: { idleTimeoutSeconds: 1 }, adminPassword: 'a-long-test-password' });
  });
  afterAll(() => t.destroy());

  it('answers 408 in the error shape and closes when a client goes silent mid-body', async () => {
    const auth = Buffer.from(`${ROOT_EMAIL}:a-long-test-password`).toString('base64');
    const started = Date.now();
    // Declares 200 bytes of body, sends 10, then nothing: without a deadline the connection waits forever.
    const answer = await rawRequest(
      t,
      `POST /channels HTTP/1.1\r\nhost: localhost\r\nauthorization: Basic ${auth}\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{"name": "`,
    );
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ error: { code: 'REQUEST_TIMEOUT', message: expect.any(String) as string } });
    // The idle deadline is 1 s; the bound only tells "ended" from "waited forever".
    expect(Date.now() - started).toBeLessThan(15_000);
    const channels = await t.request('/channels', { headers: { authorization: `Basic ${auth}` } });
    expect(channels.body).toEqual([]);
  });
});
