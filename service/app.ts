/**
 * Composition root: the service as a table of wings (`wings/`), each built from the configuration and the wings above
 * it, started in the order of `start()` and stopped in the reverse (`wings/lifecycle.ts`). Nothing starts at import
 * time and there are no singletons. A part reaches an earlier one through what that wing offers; an earlier one hears
 * of a later one only through a subscription (the keystore's changes, channel writes) or a function it was given.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { LiveEvents } from './events/live.js';
import { PrometheusMetrics } from './metrics/prometheus.js';
import { routesOf } from './api/server.js';
import type { RegisteredRoute } from './api/server.js';
import type { AuditListenerStats } from './audit/listeners.js';
import type { AuditIntakeStats } from './audit/intake.js';
import type { AuditForwarderStatus } from './audit/forwarder.js';
import type { AboutAudits, DiskSpace } from './contracts/api.js';
import type { ServerCertificate } from './tls/server-certificate.js';
import type { Store } from './storage/store.js';
import type { Backups } from './backup/backups.js';
import type { Keystore } from './keystore/keystore.js';
import type { Outbox } from './notify/outbox.js';
import type { VisualizerRecorder } from './visualizer/recorder.js';
import { ConsoleAddress, resolvedTimeZone } from './wings/core.js';
import type { Core, JunctionOptions } from './wings/core.js';
import { Lifecycle } from './wings/lifecycle.js';
import { storageWing } from './wings/storage.js';
import type { Storage } from './wings/storage.js';
import { backupsWing } from './wings/backups.js';
import { keystoreWing } from './wings/keystore.js';
import { channelsWing } from './wings/channels.js';
import { notifyWing } from './wings/notify.js';
import { settingsWing } from './wings/settings.js';
import { diskWing } from './wings/disk.js';
import type { Disk } from './wings/disk.js';
import { accountsWing } from './wings/accounts.js';
import { auditWing } from './wings/audit.js';
import type { Audit } from './wings/audit.js';
import { clientGuardWing } from './wings/client-guard.js';
import { pipelineWing } from './wings/pipeline.js';
import { refusalsWing } from './wings/refusals.js';
import { schedulersWing } from './wings/schedulers.js';
import type { Scheduling } from './wings/schedulers.js';
import { searchWing } from './wings/search.js';
import type { Search } from './wings/search.js';
import { transportsWing } from './wings/transports.js';
import type { Transports } from './wings/transports.js';
import { servicesWing } from './wings/services.js';
import { attentionWing } from './wings/attention.js';
import { apiWing } from './wings/api.js';
import { listenWing } from './wings/listen.js';
import type { Listening } from './wings/listen.js';
import { readyWing } from './wings/ready.js';

export type { JunctionOptions } from './wings/core.js';

export interface StartedJunction extends Listening {
  certificate: ServerCertificate;
}

/** The parts the public surface below reaches, once `start()` has built them all. */
interface Running {
  storage: Storage;
  store: Store;
  backups: Backups;
  keystore: Keystore;
  outbox: Outbox;
  disk: Disk;
  audit: Audit;
  scheduling: Scheduling;
  search: Search;
  transports: Transports;
  visualizer: VisualizerRecorder;
  api: FastifyInstance;
}

/** One Junction service instance: `start()` builds and starts the wings in order, `stop()` stops them in reverse. */
export class Junction {
  readonly events = new LiveEvents();
  /** The Prometheus exposition's registry, counting this instance's completions only. */
  readonly prometheus = new PrometheusMetrics();
  /** The IANA zone of metric buckets, alert and report times, and report schedules (`timeZone`, or the system's). */
  readonly timeZone: string;
  readonly #core: Core;
  readonly #life = new Lifecycle();
  #running: Running | undefined;
  #stopping: Promise<void> | undefined;
  readonly #restartListeners: ((by: string) => void)[] = [];
  #restartRequested = false;

  constructor(options: JunctionOptions) {
    this.timeZone = resolvedTimeZone(options.config.timeZone);
    this.#core = { options, config: options.config, logger: options.logger, events: this.events, prometheus: this.prometheus, timeZone: this.timeZone, console: new ConsoleAddress() };
    // Every completion, from whichever path, is counted from the first.
    this.prometheus.attach(this.events);
  }

  /** Builds and starts every part, the stores first and the listeners last. Rejects with a message that says what to fix. */
  async start(): Promise<StartedJunction> {
    const [core, life] = [this.#core, this.#life];
    const storage = await life.add('storage', () => storageWing(core));
    const backups = await life.add('backups', () => backupsWing(core, storage));
    const keystore = await life.add('keystore', () => keystoreWing(core, storage));
    const { store, cache } = await life.add('channels', () => channelsWing(core, storage, keystore));
    const settings = await life.add('settings', () => settingsWing(core, storage, store, keystore));
    const notify = await life.add('notify', () => notifyWing(core, storage, store, keystore, settings));
    const disk = await life.add('disk', () => diskWing(core, storage, store, notify.outbox));
    const accounts = await life.add('accounts', () => accountsWing(core, store, notify.outbox));
    const audit = await life.add('audit', () => auditWing(core, storage, keystore));
    const guard = await life.add('client guard', () => clientGuardWing(core, store, audit.recorder));
    const refusals = await life.add('refusals', () => refusalsWing(core, storage, store));
    const pipelines = await life.add('pipeline', () => pipelineWing(core, { storage, store, channels: cache, guard, audit: audit.recorder, keystore, disk: disk.watcher, refusals }));
    const scheduling = await life.add('schedulers', () => schedulersWing(core, { storage, store, notify, pipelines, keystore, backups, settings, refusals }));
    const search = await life.add('search', () => searchWing(core, { storage, scheduling }));
    const transports = await life.add('transports', () => transportsWing(core, { storage, store, keystore, audit, pipelines, refusals }));
    const services = await life.add('services', () => servicesWing(core, { storage, store, cache, notify, pipelines, scheduling, transports, settings, refusals }));
    const requestRestart = (by: string) => this.#requestRestart(by);
    const attention = await life.add('attention', () => attentionWing(core, { storage, store, keystore, backups, disk, transports, services, notify, refusals, search }));
    const api = await life.add('api', () => apiWing(core, { storage, store, keystore, accounts, audit, disk, backups, pipelines, transports, services, attention, requestRestart, refusals, search }));
    const listening = await life.add('listen', () => listenWing(core, storage, transports, api));
    await life.add('ready', () => readyWing(core, { storage, keystore, audit, scheduling, api, listening }));
    this.#running = { storage, store, backups, keystore, outbox: notify.outbox, disk, audit, scheduling, search, transports, visualizer: services.visualizer, api: api.app };
    return { ...listening, certificate: keystore.certificate() };
  }

  /** Stops accepting requests, lets running ones finish, records the stop event and closes the stores. */
  stop(): Promise<void> {
    this.#stopping ??= this.#life.stop().then(() => this.#core.logger.info('Junction stopped'));
    return this.#stopping;
  }

  #ran(): Running {
    if (this.#running === undefined) throw new Error('Junction is not started: call start() first');
    return this.#running;
  }

  /** The configuration collections, with channels wrapped once (storage/checked-channels.ts) for every part alike. */
  get store(): Store {
    return this.#ran().store;
  }

  get transactions(): Storage['transactions'] {
    return this.#ran().storage.transactions;
  }

  /** The ATNA audit repository: received audits and Junction's own audit events. */
  get audits(): Storage['audits'] {
    return this.#ran().storage.audits;
  }

  /** Refused requests and messages as stored (issue 35); the recorder folds them before they reach it. */
  get refusals(): Storage['refusals'] {
    return this.#ran().storage.refusals;
  }

  get bodies(): Storage['bodies'] {
    return this.#ran().storage.bodies;
  }

  /** This instance's part in a cluster on PostgreSQL (instances, job leases, change notices, the shared live feed). */
  get cluster(): Storage['cluster'] {
    return this.#ran().storage.cluster;
  }

  /** Backups of the whole data folder: downloads (`GET /backup`) and the `backup.schedule` job. */
  get backups(): Backups {
    return this.#ran().backups;
  }

  /** The server certificate and trusted CAs; its onChange tells who serves a new pair. */
  get keystore(): Keystore {
    return this.#ran().keystore;
  }

  /** Every message to a person (alerts, reports, test messages, set-password links) is recorded here first. */
  get outbox(): Outbox {
    return this.#ran().outbox;
  }

  /** The search index and its indexer (issue 37); the indexer is undefined while `search.enabled` is false. */
  get search(): Search {
    return this.#ran().search;
  }

  /** The visualizer's events of the last hour (`GET /events/:receivedTime`). */
  get visualizer(): VisualizerRecorder {
    return this.#ran().visualizer;
  }

  /** The console's address for links in messages; empty before `start()` has bound the API. */
  get consoleUrl(): string {
    return this.#core.console.url;
  }

  /**
   * Calls `listener` when an admin asks for a restart (`POST /restart`), after the answer is sent. The process entry
   * point stops and exits with the restart code; an embedding without a listener only logs the request.
   */
  onRestartRequested(listener: (by: string) => void): void {
    this.#restartListeners.push(listener);
  }

  #requestRestart(by: string): void {
    // A second request while the first is being carried out changes nothing.
    if (this.#restartRequested) return;
    this.#restartRequested = true;
    if (this.#restartListeners.length === 0) this.#core.logger.warn({ by }, 'a restart was requested, but nothing supervises this instance; restart it by hand');
    for (const listener of this.#restartListeners) listener(by);
  }

  /** Each audit repository listener's counters (received, malformed framing, refused connections, too large). */
  auditListenerStats(): AuditListenerStats[] {
    return this.#running?.transports.auditListenerStats() ?? [];
  }

  /** What the audit intake has received, stored, kept raw as malformed, failed to store and dropped under overload. */
  auditIntakeStats(): AuditIntakeStats | undefined {
    return this.#running?.transports.intake.stats();
  }

  /** The audit repository's intake and listeners and the audit sender, as `/about` and Prometheus show them. */
  auditCounts(): AboutAudits {
    return this.#running?.transports.auditCounts() ?? { listeners: [] };
  }

  /** What the sender of audit events to another repository has done; undefined when `internal`. */
  get auditForwarding(): AuditForwarderStatus | undefined {
    return this.#running?.audit.forwarding();
  }

  /** The management API's routes once started (tests reach every route from this list rather than one kept by hand). */
  get apiRoutes(): readonly RegisteredRoute[] {
    return this.#running === undefined ? [] : routesOf(this.#running.api);
  }

  /** Runs a scheduled job now, as its schedule would (waiting for a run already going), for tests and support tools. */
  runJob(name: string): Promise<void> {
    const registry = this.#running?.scheduling.registry;
    if (registry?.has(name) !== true) return Promise.reject(new Error(`no scheduled job named ${name}`));
    return registry.runNow(name);
  }

  /** Resolves once no scheduled job is running: for tests that moved the job clock on and check what it did. */
  jobsSettled(): Promise<void> {
    return this.#running?.scheduling.registry.settled() ?? Promise.resolve();
  }

  /** Measures the data folder's free space now, as the watcher's next tick would: for tests and support tools. */
  checkDisk(): Promise<void> {
    return this.#running?.disk.watcher.check() ?? Promise.resolve();
  }

  /** The data folder's space and what an admin should act on now, for /health and /about. */
  condition(): { disk?: DiskSpace; warnings: string[] } {
    return this.#running?.disk.condition() ?? { warnings: this.#core.options.logProblems?.() ?? [] };
  }

  /** Answers a management API request in-process, without a socket (Fastify's inject): for route tests. */
  async inject(request: InjectOptions): Promise<LightMyRequestResponse> {
    if (this.#running === undefined) throw new Error('the management API is not started');
    return this.#running.api.inject(request);
  }
}
