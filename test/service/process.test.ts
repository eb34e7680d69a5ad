import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, fetch } from 'undici';
import { pino } from 'pino';
import { createSqliteAuditLog } from '../../service/storage/sqlite/audit-log.js';
import { startJunction, tempDir } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import { loopbackListeners, runService } from '../helpers/process.js';

/** The API port and the router's ports on loopback, found together so no two are the same. */
async function servicePorts(): Promise<{ port: number; routing: Record<string, string> }> {
  const routing = await loopbackListeners();
  return { port: Number(routing.JUNCTION_API_PORT), routing };
}

describe('the service process', () => {
  it('starts from the built entry point, answers /heartbeat over HTTPS, logs to a file and stops cleanly on SIGTERM', async () => {
    const dataDir = await tempDir();
    const { port, routing } = await servicePorts();
    const service = runService([], { JUNCTION_DATA_DIR: dataDir, ...routing });
    const ready = await service.ready;
    expect(ready).toMatchObject({ apiUrl: `https://127.0.0.1:${port}` });

    const ca = await readFile(join(dataDir, 'keystore', 'server-cert.pem'), 'utf8');
    const dispatcher = new Agent({ connect: { ca, servername: 'localhost' } });
    const res = await fetch(`https://127.0.0.1:${port}/heartbeat`, { dispatcher });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ mediators: {} });
    await dispatcher.close();

    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });

    const logs = await readdir(join(dataDir, 'logs'));
    expect(logs.some((f) => f.startsWith('junction.') && f.endsWith('.log'))).toBe(true);
    const logFile = logs.find((f) => f.endsWith('.log')) ?? '';
    const lines = (await readFile(join(dataDir, 'logs', logFile), 'utf8')).trim().split('\n');
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toContain('Junction is ready');
    expect(messages).toContain('Junction stopped');
    // The stop was audited before the audit log closed.
    const audits = createSqliteAuditLog({ file: join(dataDir, 'audits.sqlite'), logger: pino({ level: 'silent' }) });
    await audits.open();
    try {
      expect(await audits.page({ codes: [{ field: 'eventTypeCode', code: '110121' }] }, { skip: 0, limit: 10 })).toHaveLength(1);
    } finally {
      await audits.close();
    }
  });

  it('reads a --config file and lets JUNCTION_* variables override it', async () => {
    const dataDir = await tempDir();
    const { port, routing } = await servicePorts();
    const configFile = join(dataDir, 'junction.json');
    await writeFile(configFile, JSON.stringify({ api: { port: 1, host: '127.0.0.1', protocol: 'http' }, logging: { file: { enabled: false } } }));
    const service = runService(['--config', configFile], { JUNCTION_DATA_DIR: dataDir, ...routing });
    const ready = await service.ready;
    expect(ready).toMatchObject({ apiUrl: `http://127.0.0.1:${port}` });
    service.child.kill('SIGINT');
    expect((await service.exited).code).toBe(0);
  });

  it('refuses to start on an invalid setting and names the key', async () => {
    const dataDir = await tempDir();
    const service = runService([], { JUNCTION_DATA_DIR: dataDir, JUNCTION_API_PORT: 'eighty' });
    const { code } = await service.exited;
    expect(code).not.toBe(0);
    expect(service.stderr()).toContain('JUNCTION_API_PORT');
    expect(service.stderr()).toContain('api.port');
  });

  it('refuses to start on a damaged data file, names the file and leaves it untouched', async () => {
    const dataDir = await tempDir();
    await mkdir(dataDir, { recursive: true });
    const damaged = '{"_id":"1","email":"a@b.example"}\n{this is not json\n';
    await writeFile(join(dataDir, 'users.db'), damaged);
    const { routing } = await servicePorts();
    const service = runService([], { JUNCTION_DATA_DIR: dataDir, ...routing });
    const { code } = await service.exited;
    expect(code).not.toBe(0);
    expect(service.stderr()).toContain(join(dataDir, 'users.db'));
    expect(await readFile(join(dataDir, 'users.db'), 'utf8')).toBe(damaged);
  });
});

describe('crash recovery', () => {
  it('marks a transaction that was in flight when the process was killed as Failed at the next start', async () => {
    const dataDir = await tempDir();
    let signalArrival: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (signalArrival = resolve));
    const silent = await httpUpstream(() => signalArrival());
    const { port: apiPort, routing } = await servicePorts();
    const service = runService([], {
      JUNCTION_DATA_DIR: dataDir,
      JUNCTION_ADMIN_PASSWORD: 'crash-test-admin-1',
      ...routing,
    });
    try {
      await service.ready;
      const ca = await readFile(join(dataDir, 'keystore', 'server-cert.pem'), 'utf8');
      const dispatcher = new Agent({ connect: { ca, servername: 'localhost' } });
      const created = await fetch(`https://127.0.0.1:${apiPort}/channels`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('root@junction.local:crash-test-admin-1').toString('base64')}` },
        body: JSON.stringify({ name: 'slow', urlPattern: '^/slow$', authType: 'public', routes: [{ name: 'p', host: '127.0.0.1', port: silent.port, primary: true }] }),
      });
      expect(created.status).toBe(201);
      await dispatcher.close();

      const inFlight = fetch(`http://127.0.0.1:${routing.JUNCTION_ROUTER_HTTP_PORT}/slow`, { method: 'POST', body: 'pending' }).catch(() => 'connection lost');
      // The request reaches the upstream only after its Processing record is committed, so killing now is mid-transaction.
      await arrived;
      service.child.kill('SIGKILL');
      expect((await service.exited).signal).toBe('SIGKILL');
      expect(await inFlight).toBe('connection lost');
    } finally {
      service.child.kill('SIGKILL');
      await silent.close();
    }

    const restarted = await startJunction({}, { dataDir });
    try {
      const all = await restarted.junction.transactions.page({}, { limit: 10 });
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ status: 'Failed', request: { path: '/slow', method: 'POST' } });
      expect(all[0]?.error?.message).toMatch(/Interrupted/);
    } finally {
      await restarted.destroy();
    }
  });
});
