/**
 * Instances on PostgreSQL: a row each in `cluster_instances`, its beat written every `beatMs`. At each beat an
 * instance also looks for others whose beat is older than `deadAfterMs`: it locks such a row (FOR UPDATE SKIP LOCKED,
 * so two survivors never take the same one), runs `onDead` with its id and deletes it in the same transaction. If
 * `onDead` fails the row stays, and the next beat of some survivor tries again: a dead instance's work is finished
 * exactly once, and never forgotten.
 */
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { JobTimers, TimerHandle } from '../../schedulers/timers.js';
import { clockParam, nowSql } from './cluster-clock.js';
import { wrapError } from './errors.js';
import type { ClusterClock } from './cluster-clock.js';
import type { InstanceIdentity, InstanceInfo, Instances } from '../../cluster/instances.js';

export interface PostgresInstancesOptions {
  /** The shared pool (a function, so the parts can be built before the database is open). */
  pool: () => Pool;
  identity: Omit<InstanceIdentity, 'apiUrl'>;
  beatMs: number;
  /** An instance whose beat is older than this is dead (a few missed beats, so one slow beat is not a death). */
  deadAfterMs: number;
  /** Finishes what a dead instance left (the lead passes the transaction log's `failInterruptedOf`). */
  onDead: (instanceId: string) => Promise<void>;
  timers: JobTimers;
  clock?: ClusterClock;
  logger: Logger;
}

interface InstanceRow {
  id: string;
  name: string;
  api_url: string;
  version: string;
  started_at: Date;
  beat_at: Date;
}

export class PostgresInstances implements Instances {
  readonly id: string;
  readonly #options: PostgresInstancesOptions;
  #apiUrl = '';
  #timer: TimerHandle | null = null;
  #beating: Promise<void> | null = null;
  #stopped = true;

  constructor(options: PostgresInstancesOptions) {
    this.#options = options;
    this.id = options.identity.id;
  }

  async start(apiUrl: string): Promise<void> {
    this.#apiUrl = apiUrl;
    this.#stopped = false;
    await this.#register();
    this.#plan();
  }

  async alive(): Promise<InstanceInfo[]> {
    const { pool, deadAfterMs, clock } = this.#options;
    const { rows } = await pool()
      .query<InstanceRow>(
      `SELECT id, name, api_url, version, started_at, beat_at FROM cluster_instances
        WHERE beat_at > ${nowSql('$1')} - make_interval(secs => $2::double precision / 1000) ORDER BY started_at, id`,
        [clockParam(clock), deadAfterMs],
      )
      .catch((err: unknown) => {
        // /about lists the instances: a database away is a 503 there, not a 500.
        throw wrapError('cluster_instances', 'alive', err);
      });
    return rows.map((r) => ({ id: r.id, name: r.name, apiUrl: r.api_url, version: r.version, started: r.started_at, lastBeat: r.beat_at }));
  }

  /** Writes this instance's beat, then claims and finishes every instance that stopped beating; never rejects. */
  beat(): Promise<void> {
    this.#beating ??= this.#beatOnce()
      .catch((err: unknown) => this.#options.logger.warn({ err }, 'the cluster heartbeat failed; it is tried again at the next beat'))
      .finally(() => {
        this.#beating = null;
      });
    return this.#beating;
  }

  /** Resolves once the beat in progress, if any, has finished (tests move the beat clock on, then wait here). */
  async settled(): Promise<void> {
    await this.#beating;
  }

  /** Claims the instances that stopped beating, one at a time, and returns the ids this instance finished. */
  async reap(): Promise<string[]> {
    const finished: string[] = [];
    for (;;) {
      const id = await this.#reapOne();
      if (id === null) return finished;
      finished.push(id);
    }
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = null;
    await this.#beating;
    // Marked long dead rather than deleted: a survivor then still finishes anything this instance left behind.
    await this.#options.pool().query(`UPDATE cluster_instances SET beat_at = '-infinity' WHERE id = $1`, [this.id]).catch((err: unknown) => {
      this.#options.logger.warn({ err }, 'could not tell the cluster this instance stopped; the others find out when its beat is old');
    });
  }

  #plan(): void {
    const { timers, beatMs } = this.#options;
    this.#timer = timers.at(timers.now() + beatMs, () => {
      if (this.#stopped) return;
      this.#plan();
      void this.beat();
    });
  }

  async #beatOnce(): Promise<void> {
    const { pool, clock, logger } = this.#options;
    const beat = await pool().query(`UPDATE cluster_instances SET beat_at = ${nowSql('$2')} WHERE id = $1`, [this.id, clockParam(clock)]);
    if (beat.rowCount === 0) {
      // Another instance took this one for dead (a pause longer than deadAfterMs) and finished its transactions.
      logger.error({ instance: this.id }, 'this instance was taken for dead by another (its beat was too late); it registers again');
      await this.#register();
    }
    const finished = await this.reap();
    if (finished.length > 0) logger.warn({ instances: finished }, 'finished the work of instances that stopped beating');
  }

  async #register(): Promise<void> {
    const { pool, identity, clock } = this.#options;
    await pool().query(
      `INSERT INTO cluster_instances (id, name, api_url, version, started_at, beat_at)
         VALUES ($1, $2, $3, $4, ${nowSql('$5')}, ${nowSql('$5')})
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, api_url = EXCLUDED.api_url, version = EXCLUDED.version, beat_at = EXCLUDED.beat_at`,
      [this.id, identity.name, this.#apiUrl, identity.version, clockParam(clock)],
    );
  }

  async #reapOne(): Promise<string | null> {
    const { pool, deadAfterMs, clock, onDead } = this.#options;
    const client = await pool().connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ id: string }>(
        `SELECT id FROM cluster_instances
          WHERE id <> $1 AND beat_at <= ${nowSql('$2')} - make_interval(secs => $3::double precision / 1000)
          ORDER BY beat_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [this.id, clockParam(clock), deadAfterMs],
      );
      const id = rows[0]?.id;
      if (id === undefined) {
        await client.query('COMMIT');
        return null;
      }
      // The row stays locked while its work is finished: no other survivor can claim it meanwhile.
      await onDead(id);
      await client.query('DELETE FROM cluster_instances WHERE id = $1', [id]);
      await client.query('COMMIT');
      return id;
    } catch (err) {
      await rollback(client).catch((e: unknown) => {
        broken = e as Error;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

async function rollback(client: PoolClient): Promise<void> {
  await client.query('ROLLBACK');
}
