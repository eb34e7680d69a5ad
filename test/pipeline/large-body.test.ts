import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

const MB = 1024 * 1024;

describe('a 50 MB body through the pipeline', () => {
  let t: TestJunction;
  let upstream: Upstream;
  let received = 0;

  beforeAll(async () => {
    t = await startJunction({ router: { maxBodyBytes: 100 * MB } });
    const admin = { authorization: await unlockRoot(t) };
    upstream = await httpUpstream((req, res) => {
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      req.on('end', () => res.end('stored'));
    });
    const created = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'bulk', urlPattern: '^/bulk$', authType: 'public', routes: [{ name: 'p', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  it('streams it to the route and to its body file without memory growing with the body', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x62);
    const total = 50 * MB;
    const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
    gc();
    const before = process.memoryUsage();
    let peak = 0;
    const sample = () => {
      // The second collection finishes the first one's background freeing of dead Buffers.
      gc();
      gc();
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
    };
    const timer = setInterval(sample, 100);
    async function* source() {
      for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
    }
    // node:http with pipeline() applies real backpressure from Junction back to this sender.
    const answer = await new Promise<{ text: string; id: string }>((resolve, reject) => {
      const req = request(`${t.httpUrl}/bulk`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': String(total) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ text, id: String(res.headers['x-openhim-transactionid']) }));
      });
      req.on('error', reject);
      pipeline(Readable.from(source()), req).catch(reject);
    });
    expect(answer.text).toBe('stored');
    clearInterval(timer);
    sample();
    expect(received).toBe(total);
    const id = answer.id;
    const tx = await completedTransaction(t, id);
    expect(tx).toMatchObject({ status: 'Successful', request: { body: { size: total, truncated: false } } });
    if (process.env.SHOW_PEAK === '1') console.log('peak MB', peak / MB);
    // Holding the body anywhere would show at least 50 MB; streaming measures under 1 MB. The margin is for the
    // shared, loaded machines CI runs on.
    expect(peak).toBeLessThan(32 * MB);
  }, 120_000);
});
