/**
 * Job leases on PostgreSQL (schedulers/leases.ts): a row per job naming its holder and when the lease runs out.
 * Taking is one atomic upsert that succeeds only for the holder or once the lease has run out, so two instances
 * never both hold it; a holder that dies stops renewing and another takes over at its first run after the expiry.
 * Claimed ticks keep each job's newest run slot: a claim succeeds only for a later slot, so a tick runs once.
 */
import type { Pool } from 'pg';
import type { JobLeases } from '../../schedulers/leases.js';
import { clockParam, nowSql } from './cluster-clock.js';
import type { ClusterClock } from './cluster-clock.js';
import { wrapError } from './errors.js';

export interface PostgresLeasesOptions {
  /** The shared pool (a function, so the parts can be built before the database is open). */
  pool: () => Pool;
  /** The instance taking the leases. */
  holder: string;
  /** How long a lease lasts after each take or renewal. */
  leaseMs: number;
  clock?: ClusterClock;
}

export class PostgresLeases implements JobLeases {
  readonly renewEveryMs: number;
  readonly #options: PostgresLeasesOptions;

  constructor(options: PostgresLeasesOptions) {
    this.#options = options;
    // Three tries before the lease runs out, so one slow round trip does not lose it.
    this.renewEveryMs = Math.max(1, Math.floor(options.leaseMs / 3));
  }

  async take(job: string): Promise<boolean> {
    const { pool, holder, leaseMs, clock } = this.#options;
    const now = nowSql('$3');
    const { rowCount } = await pool().query(
      `INSERT INTO cluster_leases AS l (job, holder, expires_at) VALUES ($1, $2, ${now} + make_interval(secs => $4::double precision / 1000))
       ON CONFLICT (job) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE l.holder = EXCLUDED.holder OR l.expires_at <= ${now}`,
      [job, holder, clockParam(clock), leaseMs],
    );
    return rowCount === 1;
  }

  async claimTick(job: string, slot: number): Promise<boolean> {
    const { pool, holder } = this.#options;
    const { rowCount } = await pool().query(
      `INSERT INTO cluster_ticks AS t (job, slot, instance) VALUES ($1, $2, $3)
       ON CONFLICT (job) DO UPDATE SET slot = EXCLUDED.slot, instance = EXCLUDED.instance, claimed_at = now()
         WHERE t.slot < EXCLUDED.slot`,
      [job, slot, holder],
    );
    return rowCount === 1;
  }

  async release(job: string): Promise<void> {
    const { pool, holder } = this.#options;
    await pool().query('DELETE FROM cluster_leases WHERE job = $1 AND holder = $2', [job, holder]);
  }

  /** Who holds the lease of `job` now, if anyone (for `GET /about` and tests). */
  async holderOf(job: string): Promise<string | null> {
    const { pool, clock } = this.#options;
    const { rows } = await pool()
      .query<{ holder: string }>(`SELECT holder FROM cluster_leases WHERE job = $1 AND expires_at > ${nowSql('$2')}`, [job, clockParam(clock)])
      .catch((err: unknown) => {
        throw wrapError('cluster_leases', 'holderOf', err);
      });
    return rows[0]?.holder ?? null;
  }
}
