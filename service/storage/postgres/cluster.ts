/**
 * The cluster's PostgreSQL parts (cluster/backend.ts): the instances' table (cluster-instances.ts), job leases
 * (cluster-leases.ts) and notices as NOTIFY on the shared database, heard on one LISTENing connection per instance
 * (notification-listener.ts), all over the shared pool, taken at `open()` and given back at `close()`.
 */
import type { Pool } from 'pg';
import type { ClusterBackend, ClusterBackendOptions, ClusterConnection } from '../../cluster/backend.js';
import type { Notices, NoticeTopic } from '../../cluster/notices.js';
import { PostgresInstances } from './cluster-instances.js';
import { PostgresLeases } from './cluster-leases.js';
import type { PostgresDatabase } from './database.js';
import { NotificationListener } from './notification-listener.js';

/** The NOTIFY channel of a topic for the instances whose tables are in `schema`. */
export function noticeChannel(topic: NoticeTopic, schema: string): string {
  return `junction_${topic}_${schema}`;
}

/** The cluster's parts on `database`. */
export function postgresClusterBackend(database: PostgresDatabase): ClusterBackend {
  return { engine: 'postgres', connect: (options) => connect(database, options) };
}

function connect(database: PostgresDatabase, options: ClusterBackendOptions): ClusterConnection {
  const { schema } = database;
  const { timers, logger, clock } = options;
  let opened: Pool | null = null;
  const pool = (): Pool => {
    if (opened === null) throw new Error('the cluster is not open: call open() first');
    return opened;
  };
  const topics: NoticeTopic[] = ['changes', 'live'];
  const listener = new NotificationListener({ pool, channels: topics.map((topic) => noticeChannel(topic, schema)), timers, logger });
  const notices: Notices = {
    send: async (topic, payload) => {
      await pool().query('SELECT pg_notify($1, $2)', [noticeChannel(topic, schema), payload]);
    },
    on: (topic, handler) => listener.on(noticeChannel(topic, schema), handler),
    onReconnect: (reconnected) => listener.onReconnect(reconnected),
  };
  const instances = new PostgresInstances({
    pool,
    identity: options.identity,
    beatMs: options.beatMs,
    deadAfterMs: options.deadAfterMs,
    onDead: options.onInstanceDead,
    timers,
    logger,
    ...(clock === undefined ? {} : { clock }),
  });
  const leases = new PostgresLeases({ pool, holder: options.identity.id, leaseMs: options.leaseMs, ...(clock === undefined ? {} : { clock }) });
  return {
    instances,
    leases,
    notices,
    open: async () => {
      opened = await database.acquire();
      try {
        await listener.start();
      } catch (err) {
        opened = null;
        await database.release();
        throw err;
      }
    },
    close: async () => {
      await listener.stop();
      await database.release();
    },
  };
}
