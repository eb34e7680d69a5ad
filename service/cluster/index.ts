/**
 * Instances that cooperate (issue 20): what `app.ts` builds once per instance. On the embedded engine every part is
 * the single-instance stand-in; on a shared database the engine gives the instances' table, job leases and notices
 * between instances (backend.ts; PostgreSQL's are in storage/postgres/), and this folder builds on them: writes are
 * announced to the other instances and theirs applied here (notice-change-bus.ts, announcing-store.ts,
 * invalidations.ts), and the live feed is shared (live-relay.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { LiveEvents } from '../events/live.js';
import type { JobLeases } from '../schedulers/leases.js';
import { systemTimers } from '../schedulers/timers.js';
import type { JobTimers } from '../schedulers/timers.js';
import type { Store } from '../storage/store.js';
import type { ClusterBackend } from './backend.js';
import { embeddedChangeBus } from './change-bus.js';
import type { ChangeBus } from './change-bus.js';
import { announcingStore } from './announcing-store.js';
import { embeddedLeases } from './embedded-leases.js';
import { EmbeddedInstances } from './instances.js';
import type { ClusterClock, InstanceInfo } from './instances.js';
import { applyRemoteChanges } from './invalidations.js';
import type { Invalidations } from './invalidations.js';
import { LiveRelay } from './live-relay.js';
import { NoticeChangeBus } from './notice-change-bus.js';

export type { ChangeBus, ChangeKind, ChangeNotice } from './change-bus.js';
export type { InstanceInfo, Instances } from './instances.js';
export type { Invalidations } from './invalidations.js';
export type { ClusterBackend, ClusterBackendOptions, ClusterConnection } from './backend.js';
export type { Notices, NoticeTopic } from './notices.js';

/** How often an instance beats, when it counts as dead, and how long a job lease lasts (production values). */
export interface ClusterTiming {
  beatMs: number;
  deadAfterMs: number;
  leaseMs: number;
}

/**
 * Beats every 5 s, dead after 15 s without one (three missed), found within a beat of that. A lease of 20 s renewed
 * at every run: a job ticking every 10 s or faster is taken over within 30 s of its holder's death.
 */
export const DEFAULT_CLUSTER_TIMING: ClusterTiming = { beatMs: 5_000, deadAfterMs: 15_000, leaseMs: 20_000 };

export interface ClusterOptions {
  /** The shared database's parts (the opened storage's `cluster`); absent for the embedded engine (one instance). */
  backend?: ClusterBackend | undefined;
  /** The machine's name and Junction's version, as `GET /about` lists the instances. */
  identity: { name: string; version: string };
  events: LiveEvents;
  /** Finishes what a dead instance left: the lead passes the transaction log's `failInterruptedOf(id)`. */
  onInstanceDead: (instanceId: string) => Promise<void>;
  /** The refreshes to run when another instance changed something (invalidations.ts). */
  invalidations: Invalidations;
  logger: Logger;
  /** The clock beats are planned on (tests move it by hand). */
  timers?: JobTimers;
  /** The clock of beats and lease expiries; the database's by default, so instances need not agree on the time. */
  clock?: ClusterClock;
  timing?: ClusterTiming;
  /** This instance's id; a new random one by default (each start is a new instance). */
  id?: string;
}

/** One instance's part in the cluster. */
export interface Cluster {
  readonly engine: 'embedded' | 'postgres';
  readonly instanceId: string;
  /** For the job registry (`new Schedulers(jobs, logger, timers, cluster.leases)`); used once `open()` has resolved. */
  readonly leases: JobLeases;
  readonly changes: ChangeBus;
  /** The store with its writes announced to the other instances; wrap the one every part of the service uses. */
  announce(store: Store): Store;
  /** Announces a keystore change made here; ignored while a change from another instance is being applied. */
  keystoreChanged(): void;
  /** Connects and starts listening (before anything is written, so no change of another instance is missed). */
  open(): Promise<void>;
  /** Registers this instance (once its API listens) and starts beating. */
  register(apiUrl: string): Promise<void>;
  /** The instances alive now, for `GET /about` and the console. */
  alive(): Promise<InstanceInfo[]>;
  /** What `GET /about` and the console show: the engine, this instance, and the instances alive now. */
  about(): Promise<ClusterAbout>;
  /** Resolves once the announcements and live events sent so far have left. */
  settled(): Promise<void>;
  /** Stops beating (the instance is marked gone), stops listening and gives the database back. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ClusterAbout {
  engine: 'embedded' | 'postgres';
  instanceId: string;
  instances: InstanceInfo[];
}

/**
 * Builds this instance's part; nothing connects until `open()`. Synchronous, so the composition root can wrap its
 * store (`announce`) in its constructor, as it wraps the channels.
 */
export function createCluster(options: ClusterOptions): Cluster {
  const id = options.id ?? randomUUID();
  if (options.backend === undefined) return embeddedCluster(id, options);
  return sharedCluster(id, options.backend, options, options.logger.child({ component: 'cluster' }));
}

/** `createCluster` and `open()` in one step (tests and tools). */
export async function openCluster(options: ClusterOptions): Promise<Cluster> {
  const cluster = createCluster(options);
  await cluster.open();
  return cluster;
}

function embeddedCluster(id: string, options: ClusterOptions): Cluster {
  const timers = options.timers;
  const instances = new EmbeddedInstances(id, options.identity, timers === undefined ? Date.now : () => timers.now());
  return {
    engine: 'embedded',
    instanceId: id,
    leases: embeddedLeases,
    changes: embeddedChangeBus,
    announce: (store) => store,
    keystoreChanged: () => undefined,
    open: () => Promise.resolve(),
    register: (apiUrl) => instances.start(apiUrl),
    alive: () => instances.alive(),
    about: async () => ({ engine: 'embedded', instanceId: id, instances: await instances.alive() }),
    settled: () => Promise.resolve(),
    stop: () => instances.stop(),
  };
}

function sharedCluster(id: string, backend: ClusterBackend, options: ClusterOptions, logger: Logger): Cluster {
  const timers = options.timers ?? systemTimers;
  const timing = options.timing ?? DEFAULT_CLUSTER_TIMING;
  const clock = options.clock;
  const connection = backend.connect({
    identity: { id, ...options.identity },
    beatMs: timing.beatMs,
    deadAfterMs: timing.deadAfterMs,
    leaseMs: timing.leaseMs,
    onInstanceDead: options.onInstanceDead,
    timers,
    logger,
    ...(clock === undefined ? {} : { clock }),
  });
  const { instances, leases, notices } = connection;
  const changes = new NoticeChangeBus({ notices, origin: id, logger });
  const relay = new LiveRelay({ events: options.events, notices, origin: id, logger });
  let remote: ReturnType<typeof applyRemoteChanges> | null = null;
  let opening: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const open = async (): Promise<void> => {
    // Applied before listening starts, so no change announced once this instance listens is missed.
    remote = applyRemoteChanges(changes, options.invalidations, logger);
    try {
      await connection.open();
    } catch (err) {
      remote.stop();
      throw err;
    }
    relay.start();
  };
  return {
    engine: backend.engine,
    instanceId: id,
    leases,
    changes,
    announce: (store) => announcingStore(store, changes),
    keystoreChanged: () => {
      if (remote?.applying('keystore') !== true) changes.publish('keystore', null);
    },
    open: () => (opening ??= open()),
    register: (apiUrl) => instances.start(apiUrl),
    alive: () => instances.alive(),
    about: async () => ({ engine: backend.engine, instanceId: id, instances: await instances.alive() }),
    settled: async () => {
      await changes.settled();
      await relay.settled();
    },
    stop: () => {
      stopping ??= (async () => {
        if (opening === undefined || (await opening.then(() => false, () => true))) return;
        remote?.stop();
        await instances.stop();
        await relay.stop();
        await changes.settled();
        await connection.close();
      })();
      return stopping;
    },
  };
}
