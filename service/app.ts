/**
 * Composition root: builds every part from the configuration and passes dependencies down. Nothing else in the
 * service knows which storage implementation is in use, and nothing starts at import time.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { JunctionConfig } from './config/index.js';
import { createNedbStore } from './storage/nedb/index.js';
import type { Store } from './storage/store.js';
import { UserAccounts } from './accounts/users.js';
import { Sessions } from './accounts/sessions.js';
import { LoginThrottle } from './accounts/login-throttle.js';
import { AuditRecorder } from './audit/recorder.js';
import { applicationActivityEvent } from './audit/events.js';
import { Authenticator } from './api/auth/authenticator.js';
import { createApiServer } from './api/server.js';
import { loadServerCertificate } from './tls/server-certificate.js';
import type { ServerCertificate } from './tls/server-certificate.js';

export interface JunctionOptions {
  config: JunctionConfig;
  logger: Logger;
  version: string;
}

export interface StartedJunction {
  /** Base URL of the management API, e.g. https://127.0.0.1:8080 */
  apiUrl: string;
  apiPort: number;
  certificate?: ServerCertificate;
}

const SESSION_PURGE_MS = 60 * 60_000;

/** One Junction service instance: `start()` opens the store and the listeners, `stop()` closes them in reverse. */
export class Junction {
  readonly store: Store;
  readonly #options: JunctionOptions;
  #api: FastifyInstance | undefined;
  #timers: NodeJS.Timeout[] = [];
  #audit: AuditRecorder | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: JunctionOptions) {
    this.#options = options;
    const { config, logger } = options;
    this.store = createNedbStore({
      dataDir: config.dataDir,
      logger: logger.child({ component: 'store' }),
      compactionIntervalMs: config.storage.compactionIntervalMinutes * 60_000,
    });
  }

  /** Opens the store, seeds the first-run account and starts listening. Rejects with a message that says what to fix. */
  async start(): Promise<StartedJunction> {
    const { config, logger, version } = this.#options;
    await this.store.open();

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
    const throttle = new LoginThrottle(config.api.loginThrottle);
    const authenticator = new Authenticator({ accounts, sessions, throttle, audit });

    const https = config.api.protocol === 'https';
    const certificate = https
      ? await loadServerCertificate({ dataDir: config.dataDir, ...config.tls, logger })
      : undefined;
    if (!https) logger.warn('the management API is on plain HTTP (api.protocol=http): credentials cross the network unencrypted');

    this.#api = await createApiServer(
      { logger, protocol: config.api.protocol, certificate, bodyLimitBytes: config.api.bodyLimitBytes },
      {
        authenticator,
        types,
        accounts,
        sessions,
        secureCookies: https,
        store: this.store,
        version,
        mediatorUptimes: () => Promise.resolve({}),
      },
    );
    await this.#api.listen({ host: config.api.host, port: config.api.port });
    const address = this.#api.server.address() as AddressInfo;
    const host = config.api.host === '0.0.0.0' || config.api.host === '::' ? '127.0.0.1' : config.api.host;
    const apiUrl = `${config.api.protocol}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
    await audit.record(applicationActivityEvent('start', config.auditEvents.auditSourceID));
    logger.info({ apiUrl, version, dataDir: config.dataDir }, 'Junction is ready');
    return { apiUrl, apiPort: address.port, certificate };
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
      await this.#api?.close();
      if (this.#audit !== undefined) {
        await this.#audit.record(applicationActivityEvent('stop', this.#options.config.auditEvents.auditSourceID));
      }
      await this.store.close();
      this.#options.logger.info('Junction stopped');
    })();
    return this.#stopping;
  }
}
