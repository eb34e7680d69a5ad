/**
 * The service process at a low open-file limit (issue 33): silent sockets beyond what it can hold are refused and
 * logged before they exhaust its descriptors, and it serves again once they go, instead of failing with EMFILE.
 * The limit is set on the real process with util-linux `prlimit`.
 */
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/junction.js';
import { loopbackServiceEnv, runService } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { httpGet, peers } from '../transports/peers.js';

const LIMIT = 512;

describe('the service at a 512 open-file limit', () => {
  it('caps inbound connections below the limit, logs the refusals, and serves again once the flood goes', async () => {
    const dataDir = await tempDir();
    const env = await loopbackServiceEnv(dataDir, 'a-long-test-password');
    const service = runService([], env);
    try {
      // Both limits, so Node cannot raise the soft one again.
      execFileSync('prlimit', ['--pid', String(service.child.pid), `--nofile=${LIMIT}:${LIMIT}`]);
      await service.ready;
      const lines = () => service.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const limits = lines().find((l) => l.msg === 'inbound connection limits');
      expect(limits).toMatchObject({ openFileLimit: LIMIT, maxTotal: 256 });

      const port = Number(env.JUNCTION_ROUTER_HTTP_PORT);
      // 600 silent sockets from five addresses, each under the per-address limit: more than the process may open.
      const flood = (await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'].map((a) => peers(port, a, 120)))).flat();
      await until('the connections over the cap to close', () => (flood.filter((p) => !p.closed).length <= 256 ? true : undefined), 15_000);
      expect(flood.filter((p) => !p.closed)).toHaveLength(256);
      await until('the refusals to be logged', () => (lines().some((l) => l.reason === 'total') ? true : undefined), 5_000);
      const refusals = lines().filter((l) => l.reason === 'total');
      // Once per address in the window, not once per connection.
      expect(refusals.length).toBeLessThanOrEqual(5);
      expect(lines().some((l) => String(l.code) === 'EMFILE' || String(l.err).includes('EMFILE'))).toBe(false);

      for (const p of flood) p.socket.destroy();
      await until('the service to serve again', async () => ((await httpGet(port, '127.0.0.1')) === 'HTTP/1.1 404 Not Found' ? true : undefined), 10_000);
      expect(service.child.exitCode).toBeNull();
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
