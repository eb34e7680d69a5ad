/**
 * What a shared database engine gives the cluster (storage/postgres/cluster.ts on PostgreSQL): the instances' table,
 * job leases and the notices between instances, over a connection the engine opens and closes. The cluster (index.ts)
 * builds the engine-neutral parts over them: the change bus, the live relay, the remote invalidations. The embedded
 * engine gives none: its cluster is the single-instance stand-ins.
 */
import type { Logger } from 'pino';
import type { JobLeases } from '../schedulers/leases.js';
import type { JobTimers } from '../schedulers/timers.js';
import type { ClusterClock, InstanceIdentity, Instances } from './instances.js';
import type { Notices } from './notices.js';

/** The instance's timing and identity, as the engine's parts need them. */
export interface ClusterBackendOptions {
  identity: Omit<InstanceIdentity, 'apiUrl'>;
  beatMs: number;
  deadAfterMs: number;
  leaseMs: number;
  /** Finishes what a dead instance left. */
  onInstanceDead: (instanceId: string) => Promise<void>;
  timers: JobTimers;
  clock?: ClusterClock;
  logger: Logger;
}

/** One instance's engine parts; nothing connects until `open()`. */
export interface ClusterConnection {
  readonly instances: Instances & { settled?(): Promise<void> };
  readonly leases: JobLeases;
  readonly notices: Notices;
  /** Takes the engine's connection and starts listening; rejects (having given everything back) when it cannot. */
  open(): Promise<void>;
  /** Stops listening and gives the connection back. */
  close(): Promise<void>;
}

export interface ClusterBackend {
  /** The engine's name, as `GET /about` shows it. */
  readonly engine: 'postgres';
  connect(options: ClusterBackendOptions): ClusterConnection;
}
