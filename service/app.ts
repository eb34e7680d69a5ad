/**
 * Composition root: builds every part from the configuration and passes dependencies down. Nothing else in the
 * service knows which storage implementation is in use, and nothing starts at import time. `start()` reads as the
 * list of parts, each built by one private step below it, in the order they must start.
 */
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import type { JunctionConfig } from './config/index.js';
import { OpenIdSignIn } from './accounts/openid.js';
import type { AuditLog } from './storage/audits.js';
import { createStorage } from './storage/index.js';
import type { StorageEngine } from './storage/index.js';
import { newTransactionId } from './storage/transaction-ids.js';
import type { TransactionLog } from './storage/transactions.js';
import type { Collection, Store } from './storage/store.js';
import { withCheckedChannels } from './storage/checked-channels.js';
import { sealClearRoutePasswords, withSealedRoutePasswords } from './storage/sealed-route-passwords.js';
import type { TextSealer } from './storage/sealed-route-passwords.js';
import type { ChannelRecord } from './storage/records.js';
import { upgradeLegacyChannels } from './storage/legacy-channels.js';
import type { Bodies } from './storage/bodies/bodies.js';
import { createCluster } from './cluster/index.js';
import type { Cluster } from './cluster/index.js';
import { ChannelCache } from './pipeline/channel-cache.js';
import { unusablePatterns } from './domain/channel-rules.js';
import { ClientAuthenticator } from './pipeline/authenticate.js';
import type { ClientAuthGuard } from './pipeline/authenticate.js';
import { LiveEvents } from './events/live.js';
import { VisualizerRecorder } from './visualizer/recorder.js';
import { MetricsReader } from './metrics/reader.js';
import { PrometheusMetrics } from './metrics/prometheus.js';
import type { Pipeline } from './pipeline/index.js';
import { transactionPaths } from './pipeline/assemble.js';
import type { TransactionPaths } from './pipeline/assemble.js';
import { RouteSenderPool } from './routing/senders.js';
import { TransactionPorts } from './transports/http.js';
import { Admission, guardHttpServer } from './transports/admission.js';
import { readFileLimit } from './transports/file-limit.js';
import { connectionCapOf } from './domain/admission.js';
import { ChannelListeners } from './transports/sockets.js';
import type { MessagePipeline } from './pipeline/message.js';
import type { PortClaim } from './domain/channel-ports.js';
import { Schedulers } from './schedulers/registry.js';
import type { JobTimers } from './schedulers/timers.js';
import { metricsRetentionJob, retentionJob } from './schedulers/retention.js';
import { auditRetentionJob } from './schedulers/audit-retention.js';
import { alertJob } from './alerts/alert-job.js';
import { Outbox } from './notify/outbox.js';
import { autoRetryJob } from './schedulers/auto-retry.js';
import { PollingChannels } from './schedulers/polling.js';
import { TaskRunner } from './schedulers/task-runner.js';
import { Replays } from './pipeline/replay.js';
import { queueAutoRetries } from './storage/auto-retry-queue.js';
import type { QueueingTransactionLog } from './storage/auto-retry-queue.js';
import { TaskQueue } from './tasks/queue.js';
import { UserAccounts } from './accounts/users.js';
import { Sessions } from './accounts/sessions.js';
import { FailureThrottle, LoginThrottle } from './accounts/login-throttle.js';
import { clientAuthenticationTypes } from './accounts/client-credentials.js';
import { AuditRecorder } from './audit/recorder.js';
import { FailedLoginAudit } from './audit/failed-logins.js';
import { RefusedNodeAudit } from './audit/refused-nodes.js';
import { applicationActivityEvent } from './audit/events.js';
import { AuditListeners } from './audit/listeners.js';
import { AuditIntake } from './audit/intake.js';
import type { AuditIntakeStats } from './audit/intake.js';
import { createAuditParser } from './audit/parsers.js';
import type { AuditParser } from './audit/parsers.js';
import type { AuditIntakeHandler, AuditListenerStats } from './audit/listeners.js';
import { AuditForwarder } from './audit/forwarder.js';
import type { AuditForwarderStatus } from './audit/forwarder.js';
import type { AuditSink } from './storage/audits.js';
import { Authenticator } from './api/auth/authenticator.js';
import { createApiServer, routesOf } from './api/server.js';
import { SchemaWarmup } from './api/schema-warmup.js';
import type { RegisteredRoute } from './api/server.js';
import { findConsoleDir } from './api/console.js';
import type { LiveFeedOptions } from './api/live-feed.js';
import { MediatorRegistry } from './mediators/registry.js';
import { ChannelHistory } from './channels/history.js';
import { listeningPorts } from './domain/listening-ports.js';
import type { AboutAudits, DiskSpace, ServicePort } from './contracts/api.js';
import { Keystore } from './keystore/keystore.js';
import { keystoreMetadata } from './metadata/keystore.js';
import { certificateExpiryJob } from './keystore/expiry-job.js';
import type { KeystoreChange } from './keystore/keystore.js';
import { listenerContext } from './tls/server-certificate.js';
import type { ServerCertificate } from './tls/server-certificate.js';
import { Delivery } from './notify/delivery.js';
import { EmailTransport } from './notify/email.js';
import { SmsTransport } from './notify/sms.js';
import { Notifications } from './notify/notifications.js';
import { emailedPasswordLinks } from './notify/password-links.js';
import { consoleLinks } from './notify/console-url.js';
import type { ConsoleLinks } from './notify/console-url.js';
import { ReportsJob } from './reports/reports-job.js';
import { Backups } from './backup/backups.js';
import { DiskWatcher } from './disk/watcher.js';
import type { MeasureSpace } from './disk/watcher.js';
import { alertLowSpace } from './disk/alert.js';

export interface JunctionOptions {
  config: JunctionConfig;
  logger: Logger;
  version: string;
  /** Tuning of the live feed websocket (tests shorten its ping interval). */
  liveFeed?: LiveFeedOptions;
  /** The built console to serve at `/`; by default renderer/dist beside the service, when it has been built. */
  consoleDir?: string | null;
  /** Clock of the failed-login throttles and their audit summaries (tests move it on instead of waiting). */
  clock?: () => number;
  /** The clock scheduled jobs are planned on (polling channels, auto retry, retention...); tests move it by hand. */
  timers?: JobTimers;
  /** The log destinations failing now (logger.ts), for /health and /about. */
  logProblems?: () => string[];
  /** How the data folder's free space is measured (tests give a fake disk). */
  measureDisk?: MeasureSpace;
}

export interface StartedJunction {
  /** Base URL of the management API, e.g. https://127.0.0.1:8080 */
  apiUrl: string;
  apiPort: number;
  /** Base URLs of the transaction ports. */
  httpUrl: string;
  httpsUrl: string;
  certificate: ServerCertificate;
}

const SESSION_PURGE_MS = 60 * 60_000;
/** Longest wait for a test message's first try before `POST /notifications/test` answers with it pending. */
const TEST_MESSAGE_WAIT_MS = 20_000;
const SUMMARY_FLUSH_MS = 60_000;

/** The server certificate of the API and the HTTPS transaction port, and the CAs trusted for clients and routes. */
interface Tls {
  certificate: ServerCertificate;
  trustedCAs: readonly string[];
}

/** One Junction service instance: `start()` opens the store and the listeners, `stop()` closes them in reverse. */
export class Junction {
  /** The configuration collections, with channels wrapped once (storage/checked-channels.ts) for every part alike. */
  readonly store: Store;
  readonly transactions: TransactionLog;
  /** The ATNA audit repository: received audits and Junction's own audit events. */
  readonly audits: AuditLog;
  readonly bodies: Bodies;
  /** This instance's part in a cluster on PostgreSQL (instances, job leases, change notices, the shared live feed). */
  readonly cluster: Cluster;
  /** The engine `storage.engine` names, with what differs between engines (storage/engine.ts). */
  readonly #storage: StorageEngine;
  /** Backups of the whole data folder: downloads (`GET /backup`) and the `backup.schedule` job. */
  readonly backups: Backups;
  readonly events = new LiveEvents();
  /** The Prometheus exposition's registry, counting this instance's completions only. */
  readonly prometheus = new PrometheusMetrics();
  /** The visualizer's events of the last hour (`GET /events/:receivedTime`), recorded from the live event bus. */
  readonly visualizer: VisualizerRecorder;
  /** Every message to a person (alerts, reports, test messages, set-password links) is recorded here first. */
  readonly outbox: Outbox;
  /** The IANA zone of metric buckets, alert and report times, and report schedules (`timeZone`, or the system's). */
  readonly timeZone: string;
  readonly #options: JunctionOptions;
  #api: FastifyInstance | undefined;
  #ports: TransactionPorts | undefined;
  #senders: RouteSenderPool | undefined;
  #messages: MessagePipeline | undefined;
  #listeners: ChannelListeners | undefined;
  #auditListeners: AuditListeners | undefined;
  #intake: AuditIntake | undefined;
  #auditParser: AuditParser | undefined;
  #servicePorts: PortClaim[] = [];
  #schedulers: Schedulers | undefined;
  #taskRunner: TaskRunner | undefined;
  #polling: PollingChannels | undefined;
  #openid: OpenIdSignIn | undefined;
  readonly #schemaWarmup = new SchemaWarmup();
  #channelCache: ChannelCache | undefined;
  #timers: NodeJS.Timeout[] = [];
  #disk: DiskWatcher | undefined;
  #listeningPorts: ServicePort[] = [];
  #audit: AuditRecorder | undefined;
  #auditForwarder: AuditForwarder | undefined;
  #failedClientLogins: FailedLoginAudit | undefined;
  #refusedNodes: RefusedNodeAudit | undefined;
  #stopping: Promise<void> | undefined;
  #delivery: Delivery | undefined;
  #keystore: Keystore | undefined;
  #textSealer: TextSealer | undefined;
  readonly #unreadableReported = new Set<string>();
  /** The engine's channels collection, below the sealing of route passwords: where clear ones are found and sealed. */
  readonly #engineChannels: Collection<ChannelRecord>;
  #notifyTransports: { email: EmailTransport; sms: SmsTransport } | undefined;
  #consoleUrl = '';
  #consoleLinks: ConsoleLinks = { url: '', configured: false };
  readonly #restartListeners: ((by: string) => void)[] = [];
  #restartRequested = false;

  constructor(options: JunctionOptions) {
    this.#options = options;
    const { config, logger } = options;
    const instanceId = randomUUID();
    this.timeZone = resolvedTimeZone(config.timeZone);
    const storage = createStorage({ ...config.storage, dataDir: config.dataDir }, { logger, instanceId, metricsTimeZone: this.timeZone });
    this.#storage = storage;
    this.cluster = createCluster({
      backend: storage.cluster,
      id: instanceId,
      identity: { name: hostname(), version: options.version },
      events: this.events,
      onInstanceDead: (id) => this.#finishDeadInstance(id),
      // Another instance's write refreshes here exactly what the same write made here would.
      invalidations: {
        channels: () => this.#channelsChanged(),
        keystore: async () => {
          await this.#keystore?.reload();
        },
      },
      logger,
      timing: { beatMs: config.storage.postgres.cluster.heartbeatMs, deadAfterMs: config.storage.postgres.cluster.deadAfterMs, leaseMs: config.storage.postgres.cluster.leaseMs },
      ...(options.timers === undefined ? {} : { timers: options.timers }),
    });
    // Writes are announced to the other instances (a no-op on the embedded engine), then checked as channels.
    const engineStore = this.cluster.announce(storage.store);
    this.#engineChannels = engineStore.channels;
    // Route passwords are sealed with the keystore secret at rest; the keystore is opened by start(), before any channel is read.
    this.store = withCheckedChannels(withSealedRoutePasswords(engineStore, () => this.#routePasswordSealer(), (where, err) => this.#unreadableRoutePassword(where, err)), () => this.#channelsChanged());
    // Every completion, from whichever path, is counted from the first.
    this.prometheus.attach(this.events);
    this.prometheus.watchAudits(() => this.auditCounts());
    const visualizerLogger = logger.child({ component: 'visualizer' });
    this.visualizer = new VisualizerRecorder({
      events: this.events,
      // From the pipeline's in-memory list first, without waiting: a store read (and deep copy) twice per transaction was
      // 5% of the proxy's CPU (issue 19's profile). Disabled or deleted channels are not in it and still come from the
      // store, as does any channel while the list is reloading after a write.
      channel: (id) => this.#channelCache?.peek(id) ?? this.store.channels.findById(id),
      ...(options.clock === undefined ? {} : { now: options.clock }),
      onError: (err) => visualizerLogger.error({ err }, 'a visualizer event could not be recorded'),
    }).attach();
    this.outbox = new Outbox({ notifications: this.store.notifications });
    this.transactions = storage.transactions;
    this.bodies = storage.bodies;
    this.audits = storage.audits;
    // Online backups copy the stores through their engine, which alone knows its files; a shared database is backed up
    // with PostgreSQL's own tools, so there every backup is refused with the reason (config checks refuse backup.folder).
    this.backups = new Backups({
      dataDir: config.dataDir,
      storage: storage.backup,
      junctionVersion: options.version,
      settings: config.backup,
      logger: logger.child({ component: 'backup' }),
    });
  }

  /** A channel was created, enabled, disabled, edited or deleted, here or by another instance. */
  #channelsChanged(): void {
    this.#channelCache?.invalidate();
    // Polling channels are rescheduled, and tcp and tls listeners started, moved or stopped, at once.
    this.#polling?.changed();
    this.#listeners?.changed();
  }

  /** A survivor's part when another instance stopped beating: its transactions left Processing end as a restart's would. */
  async #finishDeadInstance(instanceId: string): Promise<void> {
    const finished = await this.#storage.finishDeadInstance(instanceId);
    this.#options.logger.warn({ instance: instanceId, transactions: finished }, 'another instance stopped beating; finished the transactions it left open');
  }

  /**
   * The console's address for links in messages: `alerts.consoleURL`, or the management API's own address once it
   * listens (the console is served there). Empty before `start()` has bound the API.
   */
  get consoleUrl(): string {
    return this.#consoleUrl;
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
    if (this.#restartListeners.length === 0) this.#options.logger.warn({ by }, 'a restart was requested, but nothing supervises this instance; restart it by hand');
    for (const listener of this.#restartListeners) listener(by);
  }

  /** Each audit repository listener's counters (received, malformed framing, refused connections, too large), for /about and Prometheus. */
  auditListenerStats(): AuditListenerStats[] {
    return this.#auditListeners?.stats() ?? [];
  }

  /** What the audit intake has received, stored, kept raw as malformed, failed to store and dropped under overload. */
  auditIntakeStats(): AuditIntakeStats | undefined {
    return this.#intake?.stats();
  }

  /** The audit repository's intake and listeners and the audit sender, as `/about` and Prometheus show them. */
  auditCounts(): AboutAudits {
    const intake = this.auditIntakeStats();
    const forwarding = this.auditForwarding;
    return {
      ...(intake === undefined ? {} : { intake: { received: intake.received, stored: intake.stored, malformed: intake.malformed, failed: intake.failed, dropped: intake.dropped, inFlight: intake.inFlight } }),
      listeners: this.auditListenerStats().map((l) => ({ transport: l.transport, port: l.port, connections: l.connections, received: l.received, malformedFraming: l.malformedFraming, refusedConnections: l.refusedConnections, tooLarge: l.tooLarge })),
      ...(forwarding === undefined ? {} : { forwarding: { ...forwarding } }),
    };
  }

  /** The management API's routes once started (tests reach every route from this list rather than one kept by hand). */
  get apiRoutes(): readonly RegisteredRoute[] {
    return this.#api === undefined ? [] : routesOf(this.#api);
  }

  /**
   * Runs a scheduled job now, as its schedule would (never beside a run already going, which it waits for instead),
   * and resolves once it has finished: for tests and support tools, which must not wait for the clock.
   */
  runJob(name: string): Promise<void> {
    if (this.#schedulers?.has(name) !== true) return Promise.reject(new Error(`no scheduled job named ${name}`));
    return this.#schedulers.runNow(name);
  }

  /** Resolves once no scheduled job is running: for tests that moved the job clock on and check what it did. */
  jobsSettled(): Promise<void> {
    return this.#schedulers?.settled() ?? Promise.resolve();
  }

  /** The server certificate and trusted CAs (after `start()`); its onChange tells who serves a new pair. */
  get keystore(): Keystore {
    if (this.#keystore === undefined) throw new Error('the keystore is opened by start()');
    return this.#keystore;
  }

  /** Answers a management API request in-process, without a socket (Fastify's inject): for route tests. */
  async inject(request: InjectOptions): Promise<LightMyRequestResponse> {
    if (this.#api === undefined) throw new Error('the management API is not started');
    return this.#api.inject(request);
  }

  /** Opens the store, seeds the first-run account and starts listening. Rejects with a message that says what to fix. */
  async start(): Promise<StartedJunction> {
    const { config, logger, version } = this.#options;
    await this.#openStorage();
    await this.#watchDisk();
    const { accounts, sessions } = await this.#openAccounts();
    const tls = await this.#loadTls();
    const audit = await this.#startAudit(tls);
    const delivery = this.#startDelivery(tls);
    const channels = await this.#loadChannels();
    const mediators = this.#mediatorRegistry();
    // Whatever flags a transaction for auto retry writes through this log, which queues it (auto-retry-queue.ts).
    const log = queueAutoRetries(this.transactions, this.store.autoRetries, logger.child({ component: 'auto-retry' }));
    const tasks = this.#taskQueue(log);
    const api = await this.#createApi({ accounts, sessions, audit, mediators, log, tasks, delivery, certificate: tls.certificate });
    this.#api = api;
    const clientAuth = new ClientAuthenticator({ clients: this.store.clients, settings: config.authentication, guard: this.#clientGuard(audit) });
    const { pipeline, messages } = this.#createPipelines(channels, clientAuth, log, audit, tls);
    const { apiUrl, apiPort, httpUrl, httpsUrl } = await this.#listen(api, pipeline, messages, tls);
    this.keystore.onChange((change) => {
      this.#applyKeystoreChange(change);
      // Told to the other instances, unless this change is one of theirs being applied here.
      this.cluster.keystoreChanged();
    });
    this.#consoleLinks = consoleLinks(config.alerts.consoleURL, { protocol: config.api.protocol, host: config.api.host, port: apiPort, machineName: hostname(), lanAddresses: lanAddresses() });
    this.#consoleUrl = this.#consoleLinks.url;
    if (!this.#consoleLinks.configured) {
      logger.warn({ consoleUrl: this.#consoleUrl }, 'alerts.consoleURL is not set: links in alert, report and set-password emails use a guessed address; set it to the console address other machines reach');
    }
    this.#startSchedulers(pipeline, messages, log, delivery);
    // Listed among the live instances (GET /about), and from now on watching for instances that stop beating.
    await this.cluster.register(apiUrl);
    await audit.record(applicationActivityEvent('start', config.auditEvents.auditSourceID));
    logger.info({ apiUrl, httpUrl, httpsUrl, version, dataDir: config.dataDir }, 'Junction is ready');
    this.#schemaWarmup.start();
    return { apiUrl, apiPort, httpUrl, httpsUrl, certificate: tls.certificate };
  }

  /**
   * Opens the store, the transaction log, the bodies and the audit log (importing the audits an earlier version kept
   * in NeDB, once), then finishes what the last stop interrupted.
   */
  async #openStorage(): Promise<void> {
    const { logger } = this.#options;
    // Listening for the other instances' changes starts before anything is read, so none is missed.
    await this.cluster.open();
    await this.store.open();
    const { interrupted } = await this.#storage.open();
    if (interrupted > 0) logger.warn({ transactions: interrupted }, 'finished the transactions interrupted by the last stop (see storage/interrupted.ts)');
  }

  /**
   * Watches the data folder's free space (issue 33) from before the first listener opens, so a disk already below its
   * floor refuses the first transaction too.
   */
  async #watchDisk(): Promise<void> {
    const { config, logger, measureDisk } = this.#options;
    const mib = 1024 * 1024;
    const { disk } = config.storage;
    this.#disk = new DiskWatcher({
      dir: config.dataDir,
      thresholds: { warningBytes: disk.warningMB * mib, floorBytes: disk.floorMB * mib },
      intervalMs: disk.checkIntervalSeconds * 1000,
      // On PostgreSQL the transactions are not written to this disk, so its space does not stop them.
      refuseBelowFloor: this.#storage.refuseBelowFloor,
      logger: logger.child({ component: 'disk' }),
      onLowSpace: (space) => alertLowSpace(space, { users: this.store.users, outbox: this.outbox, instance: config.alerts.himInstance, dir: config.dataDir }),
      ...(measureDisk === undefined ? {} : { measure: measureDisk }),
    });
    await this.#disk.start();
  }

  /** Measures the data folder's free space now, as the watcher's next tick would: for tests and support tools. */
  checkDisk(): Promise<void> {
    return this.#disk?.check() ?? Promise.resolve();
  }

  /** The data folder's space and what an admin should act on now, for /health and /about. */
  condition(): { disk?: DiskSpace; warnings: string[] } {
    const space = this.#disk?.space;
    const diskWarning = this.#disk?.warning();
    return {
      ...(space === undefined ? {} : { disk: space }),
      warnings: [...(diskWarning === undefined ? [] : [diskWarning]), ...(this.#options.logProblems?.() ?? [])],
    };
  }

  /** User accounts (with the first-run super user) and login sessions, expired ones purged now and every hour. */
  async #openAccounts(): Promise<{ accounts: UserAccounts; sessions: Sessions }> {
    const { config, logger } = this.#options;
    const accounts = new UserAccounts({
      users: this.store.users,
      logger,
      legacyTokens: config.api.authenticationTypes.includes('token'),
      sendLink: emailedPasswordLinks(this.outbox, () => this.#consoleUrl, config.alerts.himInstance),
    });
    await accounts.dropLegacyCredentialsUnlessEnabled();
    await accounts.seedSuperUser(config.adminPassword);
    const sessions = new Sessions({ sessions: this.store.sessions, idleMinutes: config.api.sessionTimeoutMinutes });
    await sessions.purgeExpired();
    this.#every(SESSION_PURGE_MS, async () => {
      await sessions.purgeExpired();
    });
    return { accounts, sessions };
  }

  /** Delivery of the outbox's messages by email and SMS; new messages wake it, its job retries (added with the schedulers). */
  #startDelivery(tls: Tls): Delivery {
    const { config, logger } = this.#options;
    const delivery = new Delivery({
      notifications: this.store.notifications,
      transports: (this.#notifyTransports = { email: new EmailTransport(config.email, tls.trustedCAs), sms: new SmsTransport(config.sms, tls.trustedCAs) }),
      maxAttempts: config.notifications.maxAttempts,
      keepDays: config.notifications.keepDays,
      logger: logger.child({ component: 'notify' }),
      ...this.#claimer(),
    });
    this.#delivery = delivery;
    this.outbox.onQueued = () => delivery.wake();
    return delivery;
  }

  /**
   * The recorder of Junction's own audit events, writing to `auditEvents.interface`: this Junction's audit log
   * (`internal`), or the forwarder to another repository, started here so events queued by an earlier run go first.
   */
  async #startAudit(tls: Tls): Promise<AuditRecorder> {
    const { config, logger } = this.#options;
    const events = config.auditEvents;
    let sink: AuditSink = this.audits;
    if (events.interface !== 'internal') {
      const { cert, key, passphrase } = tls.certificate;
      const forwarder = new AuditForwarder({
        transport: events.interface,
        host: events.host,
        port: events.port,
        // On PostgreSQL one queue for every instance, each message claimed by one sender.
        outbox: this.#storage.auditOutbox(),
        maxQueued: events.maxQueued,
        retryMaxSeconds: events.retryMaxSeconds,
        // The repository's certificate is checked against these and its name; Junction's own is the client certificate.
        tls: { trustedCAs: tls.trustedCAs, cert, key, ...(passphrase === undefined ? {} : { passphrase }) },
        logger: logger.child({ component: 'audit-events' }),
      });
      await forwarder.start();
      this.#auditForwarder = forwarder;
      sink = forwarder;
    }
    this.#audit = new AuditRecorder({ audits: sink, logger, auditSourceID: events.auditSourceID });
    return this.#audit;
  }

  /** What the sender of audit events to another repository has done (queued, sent, dropped); undefined when `internal`. */
  get auditForwarding(): AuditForwarderStatus | undefined {
    return this.#auditForwarder?.status();
  }

  async #loadTls(): Promise<Tls> {
    const { config, logger } = this.#options;
    // The HTTPS transaction port always needs the certificate, even when the API is on plain HTTP.
    // The document instances share, where they share the database; otherwise the keystore's own file.
    const documents = await this.#storage.openKeystoreDocument();
    this.#keystore = await Keystore.open({
      dataDir: config.dataDir,
      secretFile: config.keystore.secretFile,
      tls: config.tls,
      logger: logger.child({ component: 'keystore' }),
      ...(documents === undefined ? {} : { documents }),
    });
    const certificate = this.#keystore.certificate();
    const trustedCAs = this.#keystore.trustedCAs();
    if (config.api.protocol !== 'https') logger.warn('the management API is on plain HTTP (api.protocol=http): credentials cross the network unencrypted');
    return { certificate, trustedCAs };
  }

  /**
   * A new pair or CA list from the keystore, applied without a restart: every TLS listener swaps its secure context
   * (open connections keep theirs, new handshakes get the new pair and are judged by the new CAs), and every outbound
   * sender verifies new connections against the new CA list.
   */
  #applyKeystoreChange(change: KeystoreChange): void {
    const { certificate, trustedCAs } = change;
    const api = this.#api?.server as unknown as { setSecureContext?: (options: object) => void } | undefined;
    if (this.#options.config.api.protocol === 'https') api?.setSecureContext?.(listenerContext(certificate, trustedCAs));
    this.#ports?.useCertificate(certificate, trustedCAs);
    this.#listeners?.useCertificate(certificate, trustedCAs);
    this.#auditListeners?.useCertificate(certificate, trustedCAs);
    this.#senders?.useTrustedCAs(trustedCAs);
    this.#notifyTransports?.email.useTrustedCAs(trustedCAs);
    this.#notifyTransports?.sms.useTrustedCAs(trustedCAs);
    this.#openid?.useTrustedCAs(trustedCAs);
    const { cert, key, passphrase } = certificate;
    this.#auditForwarder?.useTls({ trustedCAs, cert, key, ...(passphrase === undefined ? {} : { passphrase }) });
    this.#options.logger.info({ fingerprint256: certificate.fingerprint256, trustedCAs: trustedCAs.length }, 'applied the keystore to every TLS listener and sender');
  }

  #unreadableRoutePassword(where: { channel: string; route: string }, err: unknown): void {
    const key = `${where.channel}\0${where.route}`;
    if (this.#unreadableReported.has(key)) return;
    this.#unreadableReported.add(key);
    this.#options.logger.error({ ...where, err }, 'a route password cannot be opened with this keystore secret: the route sends no credentials until its password is entered again (or the secret file it was sealed with is restored)');
  }

  #routePasswordSealer(): TextSealer {
    this.#textSealer ??= this.keystore.textSealer();
    return this.#textSealer;
  }

  /** The pipeline's channel cache, which every write through `store.channels` invalidates. */
  async #loadChannels(): Promise<ChannelCache> {
    const sealed = await sealClearRoutePasswords(this.#engineChannels, this.#routePasswordSealer());
    if (sealed > 0) this.#options.logger.info({ channels: sealed }, 'sealed the route passwords an earlier version stored in clear (with the keystore secret)');
    const channels = this.store.channels;
    const upgraded = await upgradeLegacyChannels(channels);
    if (upgraded > 0) this.#options.logger.info({ channels: upgraded }, 'channels saved with whitelistedIPs now use OpenHIM\'s name, whitelist');
    this.#channelCache = new ChannelCache(channels);
    // A channel saved before patterns had to run in linear time may hold one that now never matches: say so once.
    for (const stored of await channels.find({ status: { $ne: 'deleted' } })) {
      for (const p of unusablePatterns(stored)) this.#options.logger.warn({ channel: stored.name, field: p.path, reason: p.message }, 'a channel pattern is refused and never matches until the channel is edited');
    }
    return this.#channelCache;
  }

  #mediatorRegistry(): MediatorRegistry {
    const { config, logger } = this.#options;
    return new MediatorRegistry({
      mediators: this.store.mediators,
      channels: this.store.channels,
      history: new ChannelHistory(this.store.channelAudits),
      events: this.events,
      logger: logger.child({ component: 'mediators' }),
      offlineAfterMs: config.mediators.offlineAfterSeconds * 1000,
      ...(this.#options.clock === undefined ? {} : { now: this.#options.clock }),
    });
  }

  /** Re-run tasks as the API creates them; the task runner (a scheduled job) is woken for each. */
  #taskQueue(log: TransactionLog): TaskQueue {
    const { tasks, taskTransactions, channels } = this.store;
    return new TaskQueue({ tasks, items: taskTransactions, channels, log, events: this.events, wake: () => this.#taskRunner?.wake() });
  }

  async #createApi(parts: { accounts: UserAccounts; sessions: Sessions; audit: AuditRecorder; mediators: MediatorRegistry; log: QueueingTransactionLog; tasks: TaskQueue; delivery: Delivery; certificate: ServerCertificate }): Promise<FastifyInstance> {
    const { config, logger, version, clock } = this.#options;
    const { accounts, sessions, audit, mediators, log, tasks, delivery, certificate } = parts;
    const https = config.api.protocol === 'https';
    if (!https && config.api.corsOrigins.length > 0) {
      logger.warn({ corsOrigins: config.api.corsOrigins }, 'api.corsOrigins is set on plain HTTP: the cross-site session cookie must be Secure, so browsers keep it only for localhost; consoles elsewhere need HTTPS');
    }
    const throttle = new LoginThrottle({ ...config.api.loginThrottle, ...(clock === undefined ? {} : { now: clock }) });
    const authenticator = new Authenticator({ accounts, sessions, throttle, audit });
    return createApiServer(
      { logger, schemaWarmup: this.#schemaWarmup, protocol: config.api.protocol, certificate: https ? certificate : undefined, bodyLimitBytes: config.api.bodyLimitBytes, idleTimeoutMs: config.api.idleTimeoutSeconds * 1000, handshakeTimeoutMs: config.connections.handshakeTimeoutSeconds * 1000, liveFeed: this.#options.liveFeed, consoleDir: this.#options.consoleDir === undefined ? findConsoleDir() : this.#options.consoleDir, corsOrigins: config.api.corsOrigins },
      {
        authenticator,
        types: config.api.authenticationTypes,
        openid: (this.#openid = config.api.authenticationTypes.includes('openid') ? new OpenIdSignIn({ settings: config.api.openid, accounts, trustedCAs: this.#keystore?.trustedCAs() ?? [], ...(clock === undefined ? {} : { now: clock }) }) : undefined),
        clientAuthTypes: clientAuthenticationTypes(config.authentication),
        accounts,
        sessions,
        secureCookies: https,
        crossSiteCookies: config.api.corsOrigins.length > 0,
        store: this.store,
        version,
        mediatorUptimes: () => mediators.uptimes(),
        listeningPorts: () => [...this.#listeningPorts, ...(this.#listeners?.bound() ?? []).map((b) => ({ purpose: 'transactions' as const, ...b }))],
        servicePorts: () => this.#servicePorts,
        listeners: { state: (id: string) => this.#listeners?.state(id), settled: () => this.#listeners?.settled() ?? Promise.resolve() },
        requestRestart: (by: string) => this.#requestRestart(by),
        mediators,
        audit,
        audits: this.audits,
        events: this.events,
        hasTransactions: (channelId: string) => this.transactions.hasChannel(channelId),
        transactions: log,
        transactionBodyCapBytes: config.router.maxBodyBytes,
        tasks,
        triggerPolling: (channelId: string) => this.#polling?.trigger(channelId),
        bodies: this.bodies,
        notifications: new Notifications({ notifications: this.store.notifications, outbox: this.outbox, delivery, instance: config.alerts.himInstance, testWaitMs: TEST_MESSAGE_WAIT_MS }),
        metrics: new MetricsReader({ transactions: this.transactions, minuteRetentionHours: config.metrics.minuteRetentionHours }),
        prometheus: this.prometheus,
        prometheusPublic: config.prometheus.public,
        timeZone: this.timeZone,
        auditCounts: () => this.auditCounts(),
        consoleLinks: () => this.#consoleLinks,
        logsDir: config.logging.file.enabled ? join(config.dataDir, 'logs') : null,
        visualizer: this.visualizer,
        ...(clock === undefined ? {} : { clock }),
        metadataKeystore: keystoreMetadata(this.keystore),
        backups: this.backups,
        keystore: this.keystore,
        serverCertificate: () => this.keystore.certificate(),
        condition: () => this.condition(),
        storage: async (withInstances: boolean) => {
          if (!withInstances) return { engine: this.cluster.engine };
          const about = await this.cluster.about();
          const instances = about.instances.map((i) => ({ id: i.id, name: i.name, apiUrl: i.apiUrl, version: i.version, started: i.started.toISOString(), lastBeat: i.lastBeat.toISOString(), self: i.id === about.instanceId }));
          return { engine: about.engine, instances };
        },
      },
    );
  }

  /** One guard for every transaction port, so a guesser cannot get a fresh budget by switching port or transport. */
  #clientGuard(audit: AuditRecorder): ClientAuthGuard {
    const { config, clock } = this.#options;
    const limits = config.authentication.throttle;
    const failedClientLogins = new FailedLoginAudit({ audit, windowSeconds: limits.windowSeconds, ...(clock === undefined ? {} : { now: clock }) });
    this.#failedClientLogins = failedClientLogins;
    // Summaries are also written as failures arrive; this covers a flood that stops and is followed by quiet.
    this.#every(SUMMARY_FLUSH_MS, () => failedClientLogins.flushEnded());
    // Clients refused on a channel (node authentication) are summarised per address over the same window.
    const refusedNodes = new RefusedNodeAudit({ audit, windowSeconds: limits.windowSeconds, ...(clock === undefined ? {} : { now: clock }) });
    this.#refusedNodes = refusedNodes;
    this.#every(SUMMARY_FLUSH_MS, () => refusedNodes.flushEnded());
    return {
      throttle: new FailureThrottle({
        maxFailuresPerIdentityAndAddress: limits.maxFailuresPerClientPerAddress,
        maxFailuresPerIdentity: limits.maxFailuresPerClient,
        maxFailuresPerAddress: limits.maxFailuresPerAddress,
        windowSeconds: limits.windowSeconds,
        ...(clock === undefined ? {} : { now: clock }),
      }),
      failures: failedClientLogins,
    };
  }

  /** The HTTP pipeline and the tcp and tls channels' message path, over one set of route senders (pipeline/assemble.ts). */
  #createPipelines(channels: ChannelCache, clientAuth: ClientAuthenticator, log: TransactionLog, audit: AuditRecorder, tls: Tls): TransactionPaths {
    const { config, logger } = this.#options;
    const { tcp, router } = config;
    this.#senders = new RouteSenderPool({ trustedCAs: tls.trustedCAs, maxMessageBytes: tcp.maxMessageBytes, connectionsPerUpstream: tcp.connectionsPerRoute, idleTimeoutMs: tcp.idleTimeoutSeconds * 1000 });
    const limits = { bodyCapBytes: router.maxBodyBytes, matchBodyLimitBytes: router.matchBodyLimitBytes, defaultTimeoutMs: router.timeoutMs, maxReplyBytes: tcp.maxMessageBytes };
    const paths = transactionPaths({ channels, clientAuth, log, bodies: this.bodies, audit, events: this.events, logger, newId: newTransactionId, senders: this.#senders.senders, limits, refusedNodes: this.#refusedNodes, admission: this.#disk });
    this.#messages = paths.messages;
    return paths;
  }

  /** Starts the transaction ports, the tcp and tls channel listeners, then the management API; returns the URLs. */
  async #listen(api: FastifyInstance, pipeline: Pipeline, messages: MessagePipeline, tls: Tls): Promise<{ apiUrl: string; apiPort: number; httpUrl: string; httpsUrl: string }> {
    const { config, logger } = this.#options;
    const admission = await this.#admission();
    const { connections } = config;
    this.#ports = new TransactionPorts(pipeline, {
      admission,
      connectionLimits: { perAddress: connections.maxPerAddress, headTimeoutMs: connections.headTimeoutSeconds * 1000, handshakeTimeoutMs: connections.handshakeTimeoutSeconds * 1000 },
      host: config.router.host,
      httpPort: config.router.httpPort,
      httpsPort: config.router.httpsPort,
      certificate: tls.certificate,
      requestClientCertificates: config.authentication.enableMutualTLSAuthentication,
      trustedCAs: tls.trustedCAs,
      logger,
    });
    const ports = await this.#ports.start();
    guardHttpServer(api.server, { admission, listener: 'api', perAddress: connections.maxPerAddress, headTimeoutMs: connections.headTimeoutSeconds * 1000, secure: config.api.protocol === 'https' });
    await api.listen({ host: config.api.host, port: config.api.port });
    const apiPort = (api.server.address() as AddressInfo).port;
    this.#servicePorts = [
      { port: apiPort, host: config.api.host, owner: 'the management API' },
      { port: ports.httpPort, host: config.router.host, owner: 'the HTTP transaction port' },
      { port: ports.httpsPort, host: config.router.host, owner: 'the HTTPS transaction port' },
    ];
    // A channel whose port cannot be bound shows it in its listener state; it never stops the service starting.
    this.#listeners = new ChannelListeners({
      handler: messages,
      source: () => this.store.channels.find({ type: { $in: ['tcp', 'tls'] }, status: 'enabled' }),
      certificate: tls.certificate,
      trustedCAs: tls.trustedCAs,
      limits: {
        maxMessageBytes: config.tcp.maxMessageBytes,
        idleTimeoutMs: config.tcp.idleTimeoutSeconds * 1000,
        maxConnectionsPerChannel: config.tcp.maxConnectionsPerChannel,
        maxConnectionsPerAddress: config.tcp.maxConnectionsPerAddress,
        silentTimeoutMs: config.tcp.silentTimeoutSeconds * 1000,
        frameTimeoutMs: connections.frameTimeoutSeconds * 1000,
        handshakeTimeoutMs: connections.handshakeTimeoutSeconds * 1000,
      },
      admission,
      logger: logger.child({ component: 'listeners' }),
    });
    await this.#listeners.start();
    const auditListeners = await this.#startAuditListeners(tls, admission);
    this.#listeningPorts = listeningPorts(config.api.protocol, apiPort, ports, auditListeners.bound());
    return {
      apiUrl: localUrl(config.api.protocol, config.api.host, apiPort),
      apiPort,
      httpUrl: localUrl('http', config.router.host, ports.httpPort),
      httpsUrl: localUrl('https', config.router.host, ports.httpsPort),
    };
  }

  /**
   * The connection admission every listener shares: its process-wide cap is `connections.maxTotal`, or computed from
   * the open-file limit (which Node raised to the hard limit as it started, and index.ts where Node could not).
   */
  async #admission(): Promise<Admission> {
    const { config, logger } = this.#options;
    const limit = await readFileLimit();
    const total = config.connections.maxTotal > 0 ? config.connections.maxTotal : connectionCapOf(limit?.soft ?? null);
    logger.info({ maxTotal: total, openFileLimit: limit?.soft ?? 'unknown', maxPerAddress: config.connections.maxPerAddress, tcpMaxPerAddress: config.tcp.maxConnectionsPerAddress }, 'inbound connection limits');
    return new Admission({ perAddress: config.connections.maxPerAddress, total, logger: logger.child({ component: 'connections' }), registry: this.prometheus.registry });
  }

  /** The audit repository's syslog listeners (`auditing.servers.*`); a port that cannot be bound fails the start, naming its setting. */
  async #startAuditListeners(tls: Tls, admission: Admission): Promise<AuditListeners> {
    const { config, logger } = this.#options;
    const { auditing, connections } = config;
    this.#auditListeners = new AuditListeners({
      handler: this.#auditIntake(),
      host: auditing.host,
      servers: auditing.servers,
      certificate: tls.certificate,
      trustedCAs: tls.trustedCAs,
      limits: {
        maxMessageBytes: auditing.maxMessageBytes,
        maxConnections: auditing.maxConnections,
        idleTimeoutMs: auditing.idleTimeoutSeconds * 1000,
        handshakeTimeoutMs: connections.handshakeTimeoutSeconds * 1000,
        maxConnectionsPerAddress: connections.maxPerAddress,
        silentTimeoutMs: connections.silentTimeoutSeconds * 1000,
        frameTimeoutMs: connections.frameTimeoutSeconds * 1000,
      },
      admission,
      logger: logger.child({ component: 'audit-listeners' }),
    });
    await this.#auditListeners.start();
    return this.#auditListeners;
  }

  /** Where received audit messages go: parsed into the audit model and stored in the audit log (malformed ones raw). */
  #auditIntake(): AuditIntakeHandler {
    const logger = this.#options.logger.child({ component: 'audit-intake' });
    this.#auditParser = createAuditParser(logger);
    this.#intake = new AuditIntake({ sink: this.audits, logger, parser: this.#auditParser });
    return this.#intake;
  }

  /** The scheduled jobs: retention, re-run tasks, polling channels, auto retry, alerts, message delivery and reports. */
  #startSchedulers(pipeline: Pipeline, messages: MessagePipeline, log: QueueingTransactionLog, delivery: Delivery): void {
    const { config, logger, timers } = this.#options;
    const { channels, clients, tasks, taskTransactions, autoRetries } = this.store;
    const schedulers = new Schedulers(
      [
        retentionJob({ transactions: this.transactions, bodies: this.bodies, channels, maxAgeDays: config.retention.maxAgeDays, logger }),
        metricsRetentionJob({ transactions: this.transactions, minuteRetentionHours: config.metrics.minuteRetentionHours, logger }),
      ],
      logger.child({ component: 'schedulers' }),
      timers,
      // On PostgreSQL each job runs on one instance at a time, under a lease another takes over when it lapses.
      this.cluster.leases,
    );
    this.#schedulers = schedulers;
    const replays = new Replays({ pipeline, messages, log, bodies: this.bodies, channels, clients, newId: newTransactionId });
    this.#taskRunner = new TaskRunner({ tasks, items: taskTransactions, log, replays, events: this.events, concurrency: config.tasks.concurrency, logger: logger.child({ component: 'tasks' }), ...this.#claimer() });
    this.#polling = new PollingChannels({ registry: schedulers, channels, replays, logger: logger.child({ component: 'polling' }) });
    schedulers.add(this.#taskRunner.job());
    schedulers.add(this.#polling.job());
    schedulers.add(
      autoRetryJob({ queue: autoRetries, log, channels, replays, events: this.events, minuteMs: config.autoRetry.minuteMs, logger: logger.child({ component: 'auto-retry' }), ...(timers === undefined ? {} : { now: () => new Date(timers.now()) }), ...this.#claimer() }, config.autoRetry.scanIntervalMs),
    );
    if (config.alerts.enableAlerts) {
      const { users, contactGroups, notifications, jobStates } = this.store;
      schedulers.add(
        alertJob({ log: this.transactions, channels, users, contactGroups, notifications, jobStates, outbox: this.outbox, pollPeriodMinutes: config.alerts.pollPeriodMinutes, timeZone: this.timeZone, instance: config.alerts.himInstance, consoleUrl: () => this.#consoleUrl, defaultTimeoutMs: config.router.timeoutMs, logger: logger.child({ component: 'alerts' }) }),
      );
    }
    // Certificates near expiry are announced whatever alerts.enableAlerts says: an expired certificate stops every client.
    schedulers.add(
      certificateExpiryJob({ keystore: this.keystore, users: this.store.users, contactGroups: this.store.contactGroups, outbox: this.outbox, warningDays: config.keystore.expiryWarningDays, groups: config.keystore.expiryAlertGroups, instance: config.alerts.himInstance, logger: logger.child({ component: 'keystore' }) }),
    );
    if (config.auditing.retentionDays > 0) {
      schedulers.add(auditRetentionJob({ audits: this.audits, retentionDays: config.auditing.retentionDays, logger: logger.child({ component: 'audits' }) }));
    }
    schedulers.add(delivery.job());
    schedulers.add(
      new ReportsJob({ enabled: config.reports.enableReports, users: this.store.users, channels, jobStates: this.store.jobStates, log: this.transactions, outbox: this.outbox, timeZone: this.timeZone, instance: config.alerts.himInstance, consoleUrl: () => this.#consoleUrl, minuteRetentionHours: config.metrics.minuteRetentionHours, logger: logger.child({ component: 'reports' }) }).job(),
    );
    const backupJob = this.backups.job();
    if (backupJob !== undefined) schedulers.add(backupJob);
    schedulers.start();
  }

  /** Who claims shared work (storage/claims.ts): this instance on PostgreSQL; alone, the engines' fixed default. */
  #claimer(): { instance?: string } {
    return this.#storage.claimer;
  }

  #every(ms: number, job: () => Promise<void>): void {
    const timer = setInterval(() => {
      job().catch((err: unknown) => this.#options.logger.error({ err }, 'a periodic job failed'));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  /** Stops accepting requests, lets running ones finish, records the stop event and closes the store. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const timer of this.#timers) clearInterval(timer);
      this.#timers = [];
      this.#disk?.stop();
      // A backup being written is cut short (a partial archive is never kept), so it cannot hold the stop up.
      this.backups.abort();
      await this.#schedulers?.stop();
      // Sends in progress are recorded before the store closes (the job's stop, again for a start that failed early).
      await this.#delivery?.stop();
      await this.#ports?.stop();
      await this.#listeners?.stop();
      await this.#auditListeners?.stop();
      this.#keystore?.close();
      // Every message the listeners accepted is written before the audit log closes.
      await this.#intake?.settled();
      await this.#auditParser?.close();
      await this.#messages?.drain();
      this.#schemaWarmup.stop();
      await this.#api?.close();
      await this.backups.settled();
      await this.#senders?.close();
      await this.#openid?.close();
      // Failures counted but not yet summarised would otherwise be lost with the process.
      await this.#failedClientLogins?.flushAll();
      await this.#refusedNodes?.flushAll();
      if (this.#audit !== undefined) {
        await this.#audit.record(applicationActivityEvent('stop', this.#options.config.auditEvents.auditSourceID));
      }
      // After the stop event is queued: sends what it can within its time limit, leaving the rest for the next start.
      await this.#auditForwarder?.stop();
      // The other instances stop counting this one among the living (and relay nothing more from it).
      await this.cluster.stop();
      // After the stop event, which the audit log records: the keystore's document, the logs and the bodies.
      await this.#storage.close();
      await this.store.close();
      this.#options.logger.info('Junction stopped');
    })();
    return this.#stopping;
  }
}

/** The configured zone, or the system's when none is set (config checks refuse an unknown name). */
function resolvedTimeZone(configured: string): string {
  return configured === '' ? Intl.DateTimeFormat().resolvedOptions().timeZone : configured;
}

/** The URL a local client uses for a listener: a wildcard address is reached on loopback; IPv6 goes in brackets. */
function localUrl(protocol: string, host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `${protocol}://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The machine's LAN addresses (IPv4, not loopback), in the order the system lists its interfaces. */
function lanAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address));
}
