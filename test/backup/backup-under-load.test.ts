/**
 * Issue 18 "done when": a backup taken under load (250 requests/s offered by an open-loop pacer through a channel to
 * a real upstream, at least 200/s answered while `GET /backup` streams from a real Junction process) restores into a fresh data folder; a fresh
 * Junction started on it has every transaction acknowledged before the backup began, with its request and response
 * bodies (small ones from the blob table, large ones from body files). The same archive truncated, or with one byte
 * changed, is refused and leaves nothing behind.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Agent, fetch, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreArchive } from '../../service/backup/restore.js';
import type { BackupStatus } from '../../service/contracts/backup.js';
import { basic, ROOT_EMAIL, startJunction, tempDir } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { loopbackServiceEnv, runService } from '../helpers/process.js';
import type { ServiceProcess } from '../helpers/process.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';

const ADMIN_PASSWORD = 'backup-under-load-passphrase-3';

const RATE_PER_SECOND = 250;
const WARM_UP_MS = 2500;
/** Every tenth request carries a body larger than the blob table takes (64 KiB), so it goes to a body file. */
const LARGE_BODY_BYTES = 100 * 1024;

const bodies = new Map<string, string>();

/** A body that depends on the request number and does not compress to nothing (made once, so the sender stays cheap). */
function bodyOf(kind: 'req' | 'res', i: number): string {
  const key = `${kind}${i}`;
  let body = bodies.get(key);
  if (body === undefined) {
    body = makeBody(kind, i);
    bodies.set(key, body);
  }
  return body;
}

function makeBody(kind: 'req' | 'res', i: number): string {
  const size = i % 10 === 0 ? LARGE_BODY_BYTES : 1500;
  let text = `${kind}-${i}:`;
  let block = createHash('sha256').update(`${kind}${i}`).digest('hex');
  while (text.length < size) {
    text += block;
    block = createHash('sha256').update(block).digest('hex');
  }
  return text.slice(0, size);
}

describe('a backup under load', () => {
  // The service runs in its own process, as in production, so the test's sender and upstream do not share its CPU.
  let service: ServiceProcess;
  let dataDir: string;
  let apiUrl: string;
  let httpUrl: string;
  let restored: TestJunction | undefined;
  let upstream: Upstream;
  let work: string;
  let admin: { authorization: string };
  const agent = new Agent({ connections: 64 });

  beforeAll(async () => {
    work = await tempDir('junction-backup-load-');
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        const i = Number(/^req-(\d+):/.exec(body)?.[1] ?? -1);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(bodyOf('res', i));
      });
    });
    dataDir = join(work, 'data');
    const env = await loopbackServiceEnv(dataDir, ADMIN_PASSWORD);
    service = runService([], env);
    await service.ready;
    apiUrl = `http://127.0.0.1:${env.JUNCTION_API_PORT}`;
    httpUrl = `http://127.0.0.1:${env.JUNCTION_ROUTER_HTTP_PORT}`;
    admin = { authorization: basic(ROOT_EMAIL, ADMIN_PASSWORD) };
    const created = await fetch(`${apiUrl}/channels`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'load', urlPattern: '^/load/.*$', authType: 'public', methods: ['POST'], routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] }),
    });
    expect(created.status).toBe(201);
  });

  let stopPacing = () => undefined as void;

  afterAll(async () => {
    // A failed expectation must not leave the pacer sending into a stopped service.
    stopPacing();
    await restored?.stop();
    if (service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await upstream.close();
    await agent.close();
    await rm(work, { recursive: true, force: true });
  });

  it('keeps 200 requests/s flowing while the archive streams, and restores every transaction acknowledged before it began', async () => {
    /** Request number -> the time its answer arrived, whole and right. */
    const acknowledged = new Map<number, number>();
    const failures: string[] = [];
    let sent = 0;
    let pacing = true;
    stopPacing = () => {
      pacing = false;
    };
    const inFlight = new Set<Promise<void>>();

    const send = (i: number) => {
      const p = (async () => {
        const res = await request(`${httpUrl}/load/${i}`, { method: 'POST', body: bodyOf('req', i), headers: { 'content-type': 'text/plain' }, dispatcher: agent });
        const text = await res.body.text();
        if (res.statusCode === 200 && text === bodyOf('res', i)) acknowledged.set(i, performance.now());
        else failures.push(`${i}: ${res.statusCode}`);
      })().catch((err: unknown) => {
        failures.push(`${i}: ${(err as Error).message}`);
      });
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    // Bodies are made before the clock starts, so the sender's own CPU does not limit the rate.
    for (let i = 0; i < RATE_PER_SECOND * 12; i++) {
      bodyOf('req', i);
      bodyOf('res', i);
    }
    // Open loop: request n is due at start + n / rate whatever happened to earlier ones; a late tick catches up.
    const start = performance.now();
    const pacer = new Promise<void>((resolve) => {
      const tick = () => {
        if (!pacing) {
          resolve();
          return;
        }
        const due = Math.floor(((performance.now() - start) * RATE_PER_SECOND) / 1000);
        while (sent <= due) send(sent++);
        setTimeout(tick, Math.max(1, start + ((sent * 1000) / RATE_PER_SECOND) - performance.now()));
      };
      tick();
    });

    // The warm-up fills the stores; then the backup begins with whatever was acknowledged by then.
    await until('the warm-up', () => (performance.now() - start >= WARM_UP_MS && acknowledged.size >= 500 ? true : undefined), WARM_UP_MS + 20_000);
    const before = new Set(acknowledged.keys());
    expect(failures).toEqual([]);
    console.log(`warm-up: ${before.size} acknowledged of ${sent} sent in ${Math.round(performance.now() - start)} ms`);

    const archive = join(work, 'backup.tar.gz');
    const backupStart = performance.now();
    const response = await fetch(`${apiUrl}/backup`, { headers: admin });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/gzip');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="junction-backup-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.tar\.gz"$/);
    // While it streams, a second backup is refused rather than queued behind it, and the status shows progress.
    const second = await fetch(`${apiUrl}/backup`, { headers: admin });
    expect(second.status).toBe(409);
    await second.body?.cancel();
    const during = (await (await fetch(`${apiUrl}/backup/status`, { headers: admin })).json()) as BackupStatus;
    expect(during.state).toBe('writing');
    expect(during.current?.entriesTotal).toBeGreaterThan(0);
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), createWriteStream(archive));
    const backupEnd = performance.now();
    pacing = false;
    await pacer;
    await Promise.all([...inFlight]);

    // The rate answered while the backup ran, over at least a second so that a quick backup is not judged on a blink.
    const windowMs = Math.max(1000, backupEnd - backupStart);
    const answeredInWindow = [...acknowledged.values()].filter((at) => at >= backupEnd - windowMs && at <= backupEnd).length;
    const rate = (answeredInWindow * 1000) / windowMs;
    console.log(`backup took ${Math.round(backupEnd - backupStart)} ms, ${(await stat(archive)).size} bytes; ${rate.toFixed(0)} requests/s answered meanwhile; ${sent} sent, ${acknowledged.size} acknowledged`);
    expect(failures).toEqual([]);
    expect(rate).toBeGreaterThanOrEqual(200);

    const status = (await (await fetch(`${apiUrl}/backup/status`, { headers: admin })).json()) as BackupStatus;
    expect(status.state).toBe('idle');
    expect(status.last).toMatchObject({ trigger: 'download', outcome: 'succeeded' });
    expect(status.last?.entriesDone).toBe(status.last?.entriesTotal);

    // Restore into a fresh folder and start a fresh Junction on it, the original stopped.
    service.child.kill('SIGTERM');
    expect((await service.exited).code).toBe(0);
    const restoredDir = join(work, 'restored');
    const manifest = await restoreArchive(archive, restoredDir);
    expect(manifest.entries.map((e) => e.name)).toEqual(expect.arrayContaining(['users.db', 'channels.db', 'transactions.sqlite', 'bodies.sqlite', 'audits.sqlite', 'keystore/keystore.json', 'keystore/server-cert.pem', 'keystore.secret']));
    expect(manifest.entries.some((e) => e.name.startsWith('bodies/'))).toBe(true);
    restored = await startJunction({}, { dataDir: restoredDir });
    // The restored server certificate is the one the original served.
    expect(restored.certificate).toBe(await readFile(join(dataDir, 'keystore', 'server-cert.pem'), 'utf8'));
    const restoredAdmin = { authorization: basic(ROOT_EMAIL, ADMIN_PASSWORD) };
    const ids = new Map<string, string>();
    for await (const tx of restored.junction.transactions.stream({})) ids.set(tx.request.path, tx._id);
    for (const i of before) {
      const id = ids.get(`/load/${i}`);
      expect(id, `transaction id of request ${i}`).toBeDefined();
      const res = await restored.inject(`/transactions/${id}`, { headers: restoredAdmin });
      expect(res.status, `transaction of request ${i}`).toBe(200);
      const tx = res.body as { status: string; request: { body?: string }; response?: { body?: string } };
      expect(tx.status).toBe('Successful');
      expect(tx.request.body === bodyOf('req', i), `request body of ${i}`).toBe(true);
      expect(tx.response?.body === bodyOf('res', i), `response body of ${i}`).toBe(true);
    }

    // The same archive cut short, or with one byte changed, is refused and leaves nothing behind.
    const bytes = await readFile(archive);
    const truncated = join(work, 'truncated.tar.gz');
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.9)));
    await expect(restoreArchive(truncated, join(work, 'from-truncated'))).rejects.toThrow(/truncated|damaged|manifest/);
    await expect(stat(join(work, 'from-truncated'))).rejects.toThrow(/ENOENT/);
    const corrupted = join(work, 'corrupted.tar.gz');
    const changed = Buffer.from(bytes);
    const at = Math.floor(changed.length / 2);
    changed[at] = (changed[at] ?? 0) ^ 0x01;
    await writeFile(corrupted, changed);
    await expect(restoreArchive(corrupted, join(work, 'from-corrupted'))).rejects.toThrow(/damaged|truncated|checksum/);
    await expect(stat(join(work, 'from-corrupted'))).rejects.toThrow(/ENOENT/);
  }, 120_000);
});
