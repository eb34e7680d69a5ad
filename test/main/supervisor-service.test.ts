/** The supervisor with the real built service (dist/service/index.js, built by the global setup). */
import { fork } from 'node:child_process';
import { connect } from 'node:tls';
import type { PeerCertificate } from 'node:tls';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decideCertificate, fingerprintsMatch } from '../../main/security.js';
import type { ServiceReadyMessage } from '../../service/contracts/shell.js';
import { Agent, fetch } from 'undici';
import { ROOT_EMAIL, tempDir } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';
import { loopbackListeners } from '../helpers/process.js';
import { isGone, testSupervisor } from './helpers.js';
import type { TestSupervisor } from './helpers.js';

const SERVICE = resolve('dist/service/index.js');

async function serviceEnv(): Promise<Record<string, string>> {
  return {
    JUNCTION_DATA_DIR: await tempDir(),
    ...(await loopbackListeners()),
  };
}

/** The certificate a TLS server really presents on host:port. */
function servedCertificate(host: string, port: number): Promise<PeerCertificate> {
  return new Promise((resolvePromise, reject) => {
    // Not verified here on purpose: the test compares what is served with what the service announced.
    const socket = connect({ host, port, rejectUnauthorized: false, servername: 'localhost' }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      resolvePromise(certificate);
    });
    socket.once('error', reject);
  });
}

function pem(certificate: PeerCertificate): string {
  const base64 = certificate.raw.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`;
}

const running: TestSupervisor[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.supervisor.stop()));
});

describe('the supervisor with the real service', () => {
  it('reports ready with the console URL and the fingerprint of the certificate really served there; SIGTERM stops it cleanly', async () => {
    const env = await serviceEnv();
    const t = await testSupervisor(SERVICE, env, { readyTimeoutMs: 30_000 });
    running.push(t);
    t.supervisor.start();
    const state = await t.waitFor((s) => s.phase === 'running', 'running', 30_000);
    if (state.phase !== 'running') throw new Error('not running');
    const { ready } = state;
    expect(ready.apiUrl).toBe(`https://127.0.0.1:${env.JUNCTION_API_PORT}`);
    expect(ready.version).toMatch(/^\d+\.\d+\.\d+/);

    const served = await servedCertificate('127.0.0.1', Number(env.JUNCTION_API_PORT));
    expect(fingerprintsMatch(ready.certificateFingerprint256, served.fingerprint256)).toBe(true);
    const pinned = { origin: new URL(ready.apiUrl).origin, fingerprint256: ready.certificateFingerprint256 };
    expect(decideCertificate(pinned, { hostname: '127.0.0.1', pem: pem(served) })).toBe('trust');

    const pid = state.pid;
    await t.supervisor.stop();
    expect(isGone(pid)).toBe(true);
    const log = await t.logText();
    // The service's own log lines (pino JSON on stdout) show it got SIGTERM and finished its clean stop.
    expect(log).toMatch(/\[stdout\] \{.*"signal":"SIGTERM".*"msg":"stopping"/);
    expect(log).toMatch(/\[stdout\] \{.*"msg":"Junction stopped"/);
    expect(log).toContain('[shell] the service exited with code 0');
  });

  it('stops the real service cleanly with the IPC stop message used on Windows', async () => {
    const t = await testSupervisor(SERVICE, await serviceEnv(), { readyTimeoutMs: 30_000, stopVia: 'message' });
    running.push(t);
    t.supervisor.start();
    await t.waitFor((s) => s.phase === 'running', 'running', 30_000);
    const pid = t.supervisor.pid ?? 0;
    await t.supervisor.stop();
    expect(isGone(pid)).toBe(true);
    const log = await t.logText();
    expect(log).toMatch(/"signal":"IPC stop message".*"msg":"stopping"/);
    expect(log).toContain('[shell] the service exited with code 0');
  });

  it('POST /restart: the service answers, stops cleanly, exits 75, and the supervisor starts it again at once', async () => {
    const password = 'restart-test-password-1';
    const env = { ...(await serviceEnv()), JUNCTION_ADMIN_PASSWORD: password };
    const t = await testSupervisor(SERVICE, env, { readyTimeoutMs: 30_000, restart: { maxCrashes: 1 } });
    running.push(t);
    t.supervisor.start();
    const first = await t.waitFor((s) => s.phase === 'running', 'running', 30_000);
    if (first.phase !== 'running') throw new Error('not running');
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    try {
      const res = await fetch(`${first.ready.apiUrl}/restart`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${ROOT_EMAIL}:${password}`).toString('base64')}`, 'x-requested-with': 'test' },
        dispatcher,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: 'Server being restarted' });
    } finally {
      await dispatcher.close();
    }
    await until('started again', () => (t.supervisor.state.phase === 'running' && t.supervisor.pid !== first.pid ? true : undefined), 30_000);
    expect(isGone(first.pid)).toBe(true);
    // maxCrashes 1 would have given up at the first crash: the restart did not count as one.
    expect(t.states.filter((s) => s.phase === 'restarting' || s.phase === 'failed')).toEqual([]);
    const log = await t.logText();
    expect(log).toMatch(/\[stdout\] \{.*"signal":"restart requested".*"msg":"stopping"/);
    expect(log).toMatch(/\[stdout\] \{.*"msg":"Junction stopped"/);
    expect(log).toContain('[shell] the service exited with code 75');
    expect(log).toContain('[shell] the service asked to be restarted; starting it again');
  });

  it('shows the service\'s own start-up error when it cannot start', async () => {
    const env = { ...(await serviceEnv()), JUNCTION_API_PORT: 'eighty' };
    const t = await testSupervisor(SERVICE, env, { readyTimeoutMs: 30_000 });
    running.push(t);
    t.supervisor.start();
    const failed = await t.waitFor((s) => s.phase === 'failed', 'failed', 30_000);
    // The headline and the item that names the setting, on one line.
    expect(failed.phase === 'failed' && failed.reason).toMatch(/^The service cannot start: Junction cannot start: .+ - JUNCTION_API_PORT="eighty" \(api\.port\): /);
  });

  it('the service stops by itself when the shell goes away (its IPC channel closes), so no orphan keeps the ports', async () => {
    const env = await serviceEnv();
    const child = fork(SERVICE, [], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
    try {
      await new Promise<ServiceReadyMessage>((resolvePromise, reject) => {
        child.once('message', (message) => resolvePromise(message as ServiceReadyMessage));
        child.once('exit', () => reject(new Error('exited before ready')));
      });
      child.disconnect();
      expect(await exited).toBe(0);
      expect(out).toMatch(/"signal":"shell disconnected".*"msg":"stopping"/);
      expect(isGone(child.pid ?? 0)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
