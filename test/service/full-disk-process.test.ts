/**
 * Issue 33, the real thing: the built service process with its data folder on a small tmpfs (a loop-mounted image
 * where tmpfs cannot be mounted), filled by HTTP clients and by python3-hl7's `mllp_send` with 200 KB messages, with
 * the default file logging on.
 *
 * 1. With the floor off, the disk runs out mid-body (small answers sent whole, 100 KB ones streamed): every request answered 2xx and every message answered AA must
 *    have its whole body once space is freed and the service restarted; everything else was answered 503
 *    STORE_UNAVAILABLE or a NAK, never 500; the service never exits (its log file failing included), and serves
 *    again once space is back.
 * 2. With a floor, new transactions are refused before any write once free space is below it, and taken again by
 *    themselves once space is freed.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, ROOT_EMAIL } from '../helpers/junction.js';
import { freePort, loopbackServiceEnv, runService } from '../helpers/process.js';
import type { ServiceProcess } from '../helpers/process.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { fillDisk, mountSmallDisk } from '../helpers/small-disk.js';
import type { SmallDisk } from '../helpers/small-disk.js';
import { until } from '../helpers/wait.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const BODY_BYTES = 200 * 1024;

/** A file that takes all but `leaveBytes` of the disk's free space, so the test fills the rest quickly. */
function ballast(dir: string, leaveBytes: number): string {
  const stats = statfsSync(dir);
  const path = join(dir, `ballast-${Date.now()}`);
  writeFileSync(path, Buffer.alloc(Math.max(0, stats.bavail * stats.bsize - leaveBytes)));
  return path;
}

/** An HL7 message of about BODY_BYTES with this control id, its segments split by CR LF (mllp_send --loose). */
function hl7(controlId: string): string {
  const note = `NTE|1||${controlId}:${'x'.repeat(BODY_BYTES - 200)}`;
  return [`MSH|^~\\&|LAB|CLINIC|JUNCTION|CLINIC|20261202120000||ORU^R01|${controlId}|P|2.5`, 'PID|1||12345^^^CLINIC||DOE^JANE', note].join('\r\n');
}

/** Sends the messages with mllp_send, one connection, and returns each control id's ACK code (missing: no ACK). */
async function mllpSend(dir: string, port: number, ids: string[]): Promise<Map<string, string>> {
  const file = join(dir, 'batch.hl7');
  writeFileSync(file, ids.map(hl7).join('\r\n'));
  const { stdout } = await run('mllp_send', ['--loose', '-p', String(port), '-f', file, '127.0.0.1'], { maxBuffer: 64 * MiB }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const codes = new Map<string, string>();
  for (const match of stdout.matchAll(/MSA\|(A[AER])\|([^|\r\n]+)/g)) codes.set(match[2] ?? '', match[1] ?? '');
  return codes;
}

describe('the service process on a full disk', () => {
  let disk: SmallDisk;
  let up: Upstream;
  let service: ServiceProcess | undefined;
  let scratch: string;

  beforeAll(async () => {
    disk = mountSmallDisk(40);
    scratch = `${disk.dir}-scratch`;
    mkdirSync(scratch, { recursive: true });
    up = await httpUpstream((req, res) => {
      // Odd requests get a 100 KB answer, which Junction streams on (its status line leaves before its body is stored).
      void readBody(req).then(() => res.end(req.url === '/hl7' ? '' : /[13]$/.test(req.url ?? '') ? 'a'.repeat(100 * 1024) : 'ok'));
    });
  });
  afterAll(async () => {
    if (service?.child.exitCode === null) service.child.kill('SIGKILL');
    await up.close();
    disk.remove();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('never acknowledges a body it lost, never exits, and recovers by itself', async () => {
    const dataDir = join(disk.dir, 'data');
    const env = { ...(await loopbackServiceEnv(dataDir, 'full-disk-password-1')), JUNCTION_LOGGING_FILE_ENABLED: 'true', JUNCTION_STORAGE_DISK_CHECK_INTERVAL_SECONDS: '1' };
    const api = `http://127.0.0.1:${env.JUNCTION_API_PORT}`;
    const router = `http://127.0.0.1:${env.JUNCTION_ROUTER_HTTP_PORT}`;
    const headers = { authorization: basic(ROOT_EMAIL, env.JUNCTION_ADMIN_PASSWORD), 'content-type': 'application/json' };
    const call = async (path: string, init: { method?: string; json?: unknown } = {}) => {
      const res = await fetch(`${api}${path}`, { method: init.method ?? 'GET', headers, ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const start = async (extra: Record<string, string>) => {
      service = runService([], { ...env, ...extra });
      await service.ready;
      return service;
    };

    // 1. The floor off: the disk runs out while bodies are written.
    const first = await start({ JUNCTION_STORAGE_DISK_WARNING_MB: '0', JUNCTION_STORAGE_DISK_FLOOR_MB: '0' });
    const mllpPort = await freePort();
    const route = { name: 'up', host: '127.0.0.1', port: up.port, primary: true };
    expect((await call('/channels', { method: 'POST', json: { name: 'web', urlPattern: '^/web/.*$', authType: 'public', routes: [route] } })).status).toBe(201);
    expect((await call('/channels', { method: 'POST', json: { name: 'lab', type: 'tcp', tcpHost: '127.0.0.1', tcpPort: mllpPort, authType: 'public', routes: [{ ...route, path: '/hl7' }] } })).status).toBe(201);

    const fill = ballast(disk.dir, 6 * MiB);
    const acknowledged: { id: string; body: string }[] = [];
    const acked: string[] = [];
    const refusals: { status: number; code: string }[] = [];
    let nacks = 0;
    for (let round = 0; round < 40 && (refusals.length < 6 || nacks < 4); round++) {
      for (let i = 0; i < 4; i++) {
        const body = `${round}-${i}:${'b'.repeat(BODY_BYTES)}`;
        const res = await fetch(`${router}/web/${round}-${i}`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
        const text = await res.text();
        if (res.status === 200) acknowledged.push({ id: res.headers.get('x-openhim-transactionid') ?? '', body });
        else refusals.push({ status: res.status, code: (JSON.parse(text) as { error: { code: string } }).error.code });
      }
      const ids = [0, 1].map((i) => `R${round}M${i}`);
      const codes = await mllpSend(scratch, mllpPort, ids);
      for (const id of ids) {
        if (codes.get(id) === 'AA') acked.push(id);
        else nacks += 1;
      }
      expect(first.child.exitCode, `the service exited: ${first.stderr()}`).toBeNull();
    }
    // The disk did fill, both kinds of sender were refused, and only ever with 503 STORE_UNAVAILABLE.
    expect(refusals.length).toBeGreaterThanOrEqual(6);
    expect(nacks).toBeGreaterThanOrEqual(4);
    expect(refusals.every((r) => r.status === 503 && r.code === 'STORE_UNAVAILABLE'), JSON.stringify(refusals)).toBe(true);
    expect(acknowledged.length + acked.length).toBeGreaterThan(0);
    // Not a byte left: the refusals' log lines cannot be written either, which is reported rather than ending the process.
    const last = fillDisk(disk.dir, 'last-bytes');
    await until('the log file failing', async () => {
      const body = `last:${'b'.repeat(BODY_BYTES)}`;
      const res = await fetch(`${router}/web/last`, { method: 'POST', body });
      await res.arrayBuffer();
      expect(res.status === 200 || res.status === 503, String(res.status)).toBe(true);
      if (res.status === 200) acknowledged.push({ id: res.headers.get('x-openhim-transactionid') ?? '', body });
      return /log file .* failed: ENOSPC/.test(first.stderr()) || undefined;
    });
    expect(first.child.exitCode).toBeNull();

    rmSync(last);
    rmSync(fill);
    const again = await until('the service serving again', async () => {
      const res = await fetch(`${router}/web/again`, { method: 'POST', body: 'again' });
      await res.arrayBuffer();
      return res.status === 200 || undefined;
    });
    expect(again).toBe(true);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });

    // 2. Restarted, with a floor: every acknowledged body is there, whole.
    const second = await start({ JUNCTION_STORAGE_DISK_WARNING_MB: '8', JUNCTION_STORAGE_DISK_FLOOR_MB: '4' });
    for (const { id, body } of acknowledged) {
      const tx = await call(`/transactions/${id}?filterRepresentation=full`);
      expect(tx.body, id).toMatchObject({ status: 'Successful', request: { body } });
    }
    const lab = await call('/transactions?filterRepresentation=simple&filterLimit=1000');
    const labIds = (lab.body as unknown as { _id: string; request: { path: string } }[]).map((t) => t._id);
    const stored = new Map<string, Record<string, unknown>>();
    for (const id of labIds) {
      const tx = (await call(`/transactions/${id}?filterRepresentation=full`)).body as { request: { body?: string } };
      const control = /^MSH(?:\|[^|\r\n]*){8}\|([^|\r\n]+)/.exec(tx.request.body ?? '')?.[1];
      if (control !== undefined) stored.set(control, tx);
    }
    for (const id of acked) {
      const tx = stored.get(id) as { status: string; request: { body: string } } | undefined;
      expect(tx?.status, id).toBe('Successful');
      expect(tx?.request.body.replace(/\r\n?/g, '\r'), id).toBe(hl7(id).replace(/\r\n/g, '\r'));
    }

    // Below the floor: refused before any write, over HTTP and MLLP; then taken again by itself.
    const low = ballast(disk.dir, 2 * MiB);
    await until('the floor refusing', async () => {
      const res = await fetch(`${router}/web/floor`, { method: 'POST', body: 'small' });
      await res.arrayBuffer();
      return res.status === 503 || undefined;
    });
    expect((await mllpSend(scratch, mllpPort, ['FLOOR1'])).get('FLOOR1')).toBe('AR');
    const health = await fetch(`${api}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unavailable', disk: { level: 'critical', refusing: true } });
    rmSync(low);
    await until('the floor lifted', async () => {
      const res = await fetch(`${router}/web/lifted`, { method: 'POST', body: 'small' });
      await res.arrayBuffer();
      return res.status === 200 || undefined;
    });
    expect((await mllpSend(scratch, mllpPort, ['LIFTED1'])).get('LIFTED1')).toBe('AA');
    expect(second.child.exitCode).toBeNull();
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });
});
