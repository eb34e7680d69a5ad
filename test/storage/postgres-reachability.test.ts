/** Whether the PostgreSQL server answers: a dropped connection is checked at once, and an outage is probed until it ends. */
import { describe, expect, it } from 'vitest';
import { Reachability } from '../../service/storage/postgres/reachability.js';
import { memoryLogger } from '../helpers/logger.js';
import { until } from '../helpers/wait.js';

describe('Reachability', () => {
  it('reports an outage only once a probe fails too, and its end as soon as a probe answers', async () => {
    let up = true;
    let probes = 0;
    const { logger, lines } = memoryLogger();
    const reachability = new Reachability({
      probe: () => {
        probes += 1;
        return up ? Promise.resolve() : Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
      },
      probeEveryMs: 5,
      logger,
    });
    try {
      // One backend ended by an administrator: the probe answers, so nothing is reported.
      reachability.suspect(new Error('terminating connection due to administrator command'));
      await until('the probe', () => (probes === 1 ? true : undefined));
      await Promise.resolve();
      expect(reachability.unreachable).toBeNull();

      up = false;
      reachability.suspect(new Error('Connection terminated unexpectedly'));
      const outage = await until('the outage', () => reachability.unreachable ?? undefined);
      expect(outage.error).toBe('connect ECONNREFUSED 127.0.0.1:5432');
      expect(Date.parse(outage.since)).toBeLessThanOrEqual(Date.now());
      const before = probes;
      await until('more probes while it is down', () => (probes >= before + 3 ? true : undefined));
      // Said once per outage, not once per probe.
      expect(lines.filter((l) => l.level === 50)).toHaveLength(1);

      up = true;
      await until('the end of the outage', () => (reachability.unreachable === null ? true : undefined));
      expect(lines.some((l) => l.msg === 'the PostgreSQL database answers again')).toBe(true);
    } finally {
      reachability.stop();
    }
  });
});
