/**
 * Composition root: builds every part from the configuration and passes dependencies down. Nothing else in the
 * service knows which storage implementation is in use, and nothing starts at import time.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import type { JunctionConfig } from './config/index.js';
import { createNedbStore } from './storage/nedb/index.js';
import { createNedbTransactionLog, newTransactionId } from './storage/nedb/transaction-log.js';
import { createSqliteTransactionLog } from './storage/sqlite/transaction-log.js';
import { SqliteBodyBlobs } from './storage/sqlite/body-blobs.js';
import type { TransactionLog } from './storage/transactions.js';
import type { Store } from './storage/store.js';
import { uniqueLiveChannelNames } from './storage/live-channel-names.js';
import { observeCollection } from './storage/observe.js';
import { BodyFiles } from './storage/bodies/body-files.js';
import { ChannelCache } from './pipeline/channel-cache.js';
import { unusablePatterns } from './domain/channel-rules.js';
import { ClientAuthenticator } from './pipeline/authenticate.js';
import type { ClientAuthGuard } from './pipeline/authenticate.js';
import { LiveEvents } from './events/live.js';
import { Pipeline } from './pipeline/index.js';
import { HttpRouter } from './routing/http.js';
import { TransactionPorts } from './transports/http.js';
import { Schedulers } from './schedulers/registry.js';
import { retentionJob } from './schedulers/retention.js';
import { autoRetryJob } from './schedulers/auto-retry.js';
import { PollingChannels } from './schedulers/polling.js';
import { TaskRunner } from './schedulers/task-runner.js';
import { Replays } from './pipeline/replay.js';
import { queueAutoRetries } from './storage/auto-retry-queue.js';
import { TaskQueue } from './tasks/queue.js';
import { UserAccounts } from './accounts/users.js';
import { Sessions } from './accounts/sessions.js';
import { FailureThrottle, LoginThrottle } from './accounts/login-throttle.js';
import { AuditRecorder } from './audit/recorder.js';
import { FailedLoginAudit } from './audit/failed-logins.js';
import { applicationActivityEvent } from './audit/events.js';
import { Authenticator } from './api/auth/authenticator.js';
import { createApiServer, routesOf } from './api/server.js';
import type { RegisteredRoute } from './api/server.js';
import { findConsoleDir } from './api/console.js';
import type { LiveFeedOptions } from './api/live-feed.js';
import { MediatorRegistry } from './mediators/registry.js';
import { listeningPorts } from './domain/listening-ports.js';
import type { ServicePort } from './contracts/api.js';
import { loadServerCertificate, loadTrustedCAs } from './tls/server-certificate.js';
import type { ServerCertificate } from './tls/server-certificate.js';

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
const SUMMARY_FLUSH_MS = 60_000;

/** One Junction service instance: `start()` opens the store and the listeners, `stop()` closes them in reverse. */
export class Junction {
  readonly store: Store;
  readonly transactions: TransactionLog & { open(): Promise<void>; close(): Promise<void> };
  readonly bodies: BodyFiles;
  readonly events = new LiveEvents();
  readonly #options: JunctionOptions;
  #api: FastifyInstance | undefined;
  #ports: TransactionPorts | undefined;
  #router: HttpRouter | undefined;
  #schedulers: Schedulers | undefined;
  #taskRunner: TaskRunner | undefined;
  #polling: PollingChannels | undefined;
  #timers: NodeJS.Timeout[] = [];
  #listeningPorts: ServicePort[] = [];
  #audit: AuditRecorder | undefined;
  #failedClientLogins: FailedLoginAudit | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: JunctionOptions) {
    this.#options = options;
    const { config, logger } = options;
    this.store = createNedbStore({
      dataDir: config.dataDir,
      logger: logger.child({ component: 'store' }),
      compactionIntervalMs: config.storage.compactionIntervalMinutes * 60_000,
    });
    const txLogger = logger.child({ component: 'transactions' });
    this.transactions =
      config.storage.transactionLog === 'sqlite'
        ? createSqliteTransactionLog({ file: join(config.dataDir, 'transactions.sqlite'), logger: txLogger })
        : createNedbTransactionLog({ dir: join(config.dataDir, 'transactions'), logger: txLogger });
    // With the SQLite engine, small bodies live in bodies.sqlite rather than one file each (see body-blobs.ts).
    const smallBodies =
      config.storage.transactionLog === 'sqlite' ? new SqliteBodyBlobs({ file: join(config.dataDir, 'bodies.sqlite'), logger: txLogger }) : undefined;
    this.bodies = new BodyFiles(join(config.dataDir, 'bodies'), smallBodies);
  }

  /** The management API's routes once started (tests reach every route from this list rather than one kept by hand). */
  get apiRoutes(): readonly RegisteredRoute[] {
    return this.#api === undefined ? [] : routesOf(this.#api);
  }

  /** Answers a management API request in-process, without a socket (Fastify's inject): for route tests. */
  async inject(request: InjectOptions): Promise<LightMyRequestResponse> {
    if (this.#api === undefined) throw new Error('the management API is not started');
    return this.#api.inject(request);
  }

  /** Opens the store, seeds the first-run account and starts listening. Rejects with a message that says what to fix. */
  async start(): Promise<StartedJunction> {
    const { config, logger, version } = this.#options;
    await this.store.open();
    await this.transactions.open();
    await this.bodies.open();
    const interrupted = await this.transactions.failInterrupted();
    if (interrupted > 0) logger.warn({ transactions: interrupted }, 'finished the transactions interrupted by the last stop (see storage/interrupted.ts)');

    const types = config.api.authenticationTypes;
    const accounts = new UserAccounts({ users: this.store.users, logger, legacyTokens: types.includes('token') });
    await accounts.dropLegacyCredentialsUnlessEnabled();
    await accounts.seedSuperUser(config.adminPassword);

    const sessions = new Sessions({ sessions: this.store.sessions, idleMinutes: config.api.sessionTimeoutMinutes });
    await sessions.purgeExpired();
    this.#every(SESSION_PURGE_MS, async () => {
      await sessions.purgeExpired();
    });

    const audit = new AuditRecorder({ audits: this.store.audits, logger, auditSourceID: config.auditEvents.auditSourceID });
    this.#audit = audit;
    const clock = this.#options.clock;
    const throttle = new LoginThrottle({ ...config.api.loginThrottle, ...(clock === undefined ? {} : { now: clock }) });
    const authenticator = new Authenticator({ accounts, sessions, throttle, audit });

    const https = config.api.protocol === 'https';
    // The HTTPS transaction port always needs the certificate, even when the API is on plain HTTP.
    const { trustedCAFiles, ...serverTls } = config.tls;
    const certificate = await loadServerCertificate({ dataDir: config.dataDir, ...serverTls, logger });
    const trustedCAs = await loadTrustedCAs(trustedCAFiles);
    if (!https) logger.warn('the management API is on plain HTTP (api.protocol=http): credentials cross the network unencrypted');

    const channels = new ChannelCache(this.store.channels);
    // A channel saved before patterns had to run in linear time may hold one that now never matches: say so once.
    for (const stored of await this.store.channels.find({ status: { $ne: 'deleted' } })) {
      for (const p of unusablePatterns(stored)) logger.warn({ channel: stored.name, field: p.path, reason: p.message }, 'a channel pattern is refused and never matches until the channel is edited');
    }
    const store = this.store;
    // The API writes channels through an observed collection, so the pipeline's channel cache is never stale, and
    // through the live-name check, which no store index can express.
    const apiStore: Store = {
      engine: store.engine,
      users: store.users,
      sessions: store.sessions,
      audits: store.audits,
      clients: store.clients,
      mediators: store.mediators,
      tasks: store.tasks,
      taskTransactions: store.taskTransactions,
      autoRetries: store.autoRetries,
      channels: observeCollection(uniqueLiveChannelNames(store.channels), () => {
        channels.invalidate();
        // Polling channels are rescheduled as soon as they are enabled, disabled, edited or deleted.
        this.#polling?.changed();
      }),
      open: () => store.open(),
      close: () => store.close(),
      health: () => store.health(),
    };

    const mediators = new MediatorRegistry({
      mediators: store.mediators,
      channels: apiStore.channels,
      events: this.events,
      logger: logger.child({ component: 'mediators' }),
      offlineAfterMs: config.mediators.offlineAfterSeconds * 1000,
    });

    // Whatever flags a transaction for auto retry writes through this log, which queues it (auto-retry-queue.ts).
    const log = queueAutoRetries(this.transactions, store.autoRetries, logger.child({ component: 'auto-retry' }));
    const tasks = new TaskQueue({ tasks: store.tasks, items: store.taskTransactions, channels: store.channels, log, events: this.events, wake: () => this.#taskRunner?.wake() });

    this.#api = await createApiServer(
      { logger, protocol: config.api.protocol, certificate: https ? certificate : undefined, bodyLimitBytes: config.api.bodyLimitBytes, idleTimeoutMs: config.api.idleTimeoutSeconds * 1000, liveFeed: this.#options.liveFeed, consoleDir: this.#options.consoleDir === undefined ? findConsoleDir() : this.#options.consoleDir },
      {
        authenticator,
        types,
        accounts,
        sessions,
        secureCookies: https,
        store: apiStore,
        version,
        mediatorUptimes: () => mediators.uptimes(),
        listeningPorts: () => this.#listeningPorts,
        mediators,
        events: this.events,
        hasTransactions: (channelId: string) => this.transactions.hasChannel(channelId),
        transactions: log,
        tasks,
        triggerPolling: (channelId: string) => this.#polling?.trigger(channelId),
        bodies: this.bodies,
      },
    );

    this.#router = new HttpRouter({ trustedCAs });
    // One guard for every transaction port, so a guesser cannot get a fresh budget by switching port or transport.
    const limits = config.authentication.throttle;
    const failedClientLogins = new FailedLoginAudit({ audit, windowSeconds: limits.windowSeconds, ...(clock === undefined ? {} : { now: clock }) });
    this.#failedClientLogins = failedClientLogins;
    // Summaries are also written as failures arrive; this covers a flood that stops and is followed by quiet.
    this.#every(SUMMARY_FLUSH_MS, () => failedClientLogins.flushEnded());
    const guard: ClientAuthGuard = {
      throttle: new FailureThrottle({
        maxFailuresPerIdentityAndAddress: limits.maxFailuresPerClientPerAddress,
        maxFailuresPerIdentity: limits.maxFailuresPerClient,
        maxFailuresPerAddress: limits.maxFailuresPerAddress,
        windowSeconds: limits.windowSeconds,
        ...(clock === undefined ? {} : { now: clock }),
      }),
      failures: failedClientLogins,
    };
    const pipeline = new Pipeline({
      channels,
      clientAuth: new ClientAuthenticator({ clients: store.clients, settings: config.authentication, guard }),
      log,
      bodies: this.bodies,
      router: this.#router,
      audit,
      events: this.events,
      logger: logger.child({ component: 'pipeline' }),
      newId: newTransactionId,
      limits: { bodyCapBytes: config.router.maxBodyBytes, matchBodyLimitBytes: config.router.matchBodyLimitBytes, defaultTimeoutMs: config.router.timeoutMs },
    });
    this.#ports = new TransactionPorts(pipeline, {
      host: config.router.host,
      httpPort: config.router.httpPort,
      httpsPort: config.router.httpsPort,
      certificate,
      requestClientCertificates: config.authentication.enableMutualTLSAuthentication,
      trustedCAs,
      logger,
    });
    const ports = await this.#ports.start();
    await this.#api.listen({ host: config.api.host, port: config.api.port });
    const address = this.#api.server.address() as AddressInfo;
    const host = config.api.host === '0.0.0.0' || config.api.host === '::' ? '127.0.0.1' : config.api.host;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    const apiUrl = `${config.api.protocol}://${hostPart}:${address.port}`;
    const routerHost = config.router.host === '0.0.0.0' || config.router.host === '::' ? '127.0.0.1' : config.router.host;
    const routerPart = routerHost.includes(':') ? `[${routerHost}]` : routerHost;
    const httpUrl = `http://${routerPart}:${ports.httpPort}`;
    const httpsUrl = `https://${routerPart}:${ports.httpsPort}`;
    // No audit repository listeners are bound yet (the ATNA servers arrive with their own issue).
    this.#listeningPorts = listeningPorts(config.api.protocol, address.port, ports);
    this.#schedulers = new Schedulers(
      [retentionJob({ transactions: this.transactions, bodies: this.bodies, channels: store.channels, maxAgeDays: config.retention.maxAgeDays, logger })],
      logger.child({ component: 'schedulers' }),
    );
    const replays = new Replays({ pipeline, log, bodies: this.bodies, channels: store.channels, clients: store.clients, newId: newTransactionId });
    this.#taskRunner = new TaskRunner({ tasks: store.tasks, items: store.taskTransactions, log, replays, events: this.events, concurrency: config.tasks.concurrency, logger: logger.child({ component: 'tasks' }) });
    this.#polling = new PollingChannels({ registry: this.#schedulers, channels: store.channels, replays, logger: logger.child({ component: 'polling' }) });
    this.#schedulers.add(this.#taskRunner.job());
    this.#schedulers.add(this.#polling.job());
    this.#schedulers.add(
      autoRetryJob({ queue: store.autoRetries, log, channels: store.channels, replays, events: this.events, minuteMs: config.autoRetry.minuteMs, logger: logger.child({ component: 'auto-retry' }) }, config.autoRetry.scanIntervalMs),
    );
    this.#schedulers.start();
    await audit.record(applicationActivityEvent('start', config.auditEvents.auditSourceID));
    logger.info({ apiUrl, httpUrl, httpsUrl, version, dataDir: config.dataDir }, 'Junction is ready');
    return { apiUrl, apiPort: address.port, httpUrl, httpsUrl, certificate };
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
      await this.#schedulers?.stop();
      await this.#ports?.stop();
      await this.#api?.close();
      await this.#router?.close();
      // Failures counted but not yet summarised would otherwise be lost with the process.
      await this.#failedClientLogins?.flushAll();
      if (this.#audit !== undefined) {
        await this.#audit.record(applicationActivityEvent('stop', this.#options.config.auditEvents.auditSourceID));
      }
      await this.transactions.close();
      await this.bodies.close();
      await this.store.close();
      this.#options.logger.info('Junction stopped');
    })();
    return this.#stopping;
  }
}
