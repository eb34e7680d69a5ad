/**
 * The API wing: the management API on Fastify, built (not yet listening) from the services the other wings built;
 * with it, who calls it (sessions, the login throttle, OpenID Connect sign-in) and the background compiling of its
 * schemas. It serves the keystore's pair as soon as it changes.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { OpenIdSignIn } from '../accounts/openid.js';
import { LoginThrottle } from '../accounts/login-throttle.js';
import { clientAuthenticationTypes } from '../accounts/client-credentials.js';
import { Authenticator } from '../api/auth/authenticator.js';
import { createApiServer } from '../api/server.js';
import { SchemaWarmup } from '../api/schema-warmup.js';
import { findConsoleDir } from '../api/console.js';
import { findDocsDir } from '../api/manual.js';
import { keystoreMetadata } from '../metadata/keystore.js';
import { checkRoutes } from '../routing/route-check.js';
import { listenerContext } from '../tls/server-certificate.js';
import type { Keystore } from '../keystore/keystore.js';
import type { Store } from '../storage/store.js';
import type { Backups } from '../backup/backups.js';
import { clockOf } from './core.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Accounts } from './accounts.js';
import type { Audit } from './audit.js';
import type { Disk } from './disk.js';
import type { Pipelines } from './pipeline.js';
import type { Transports } from './transports.js';
import type { Services } from './services.js';
import type { AttentionWing } from './attention.js';
import type { Search } from './search.js';
import type { Wing } from './lifecycle.js';
import type { RefusalRecorder } from '../refused/recorder.js';

export interface Api {
  app: FastifyInstance;
  warmup: SchemaWarmup;
}

export interface ApiParts {
  storage: Storage;
  store: Store;
  keystore: Keystore;
  accounts: Accounts;
  audit: Audit;
  disk: Disk;
  backups: Backups;
  pipelines: Pipelines;
  transports: Transports;
  services: Services;
  attention: AttentionWing;
  /** Asks the process to restart (`POST /restart`). */
  requestRestart: (by: string) => void;
  /** Refused requests and messages (`GET /refusals`). */
  refusals: RefusalRecorder;
  /** The clinical search (issue 37): whether it is on, the index, and the indexer's health. */
  search: Search;
}

export async function apiWing(core: Core, parts: ApiParts): Promise<Wing<Api>> {
  const { config, logger, options, events, prometheus, timeZone } = core;
  const { storage, store, keystore, audit, disk, backups, pipelines, transports, services } = parts;
  const { accounts, sessions } = parts.accounts;
  const { clock } = options;
  const https = config.api.protocol === 'https';
  if (!https && config.api.corsOrigins.length > 0) {
    logger.warn({ corsOrigins: config.api.corsOrigins }, 'api.corsOrigins is set on plain HTTP: the cross-site session cookie must be Secure, so browsers keep it only for localhost; consoles elsewhere need HTTPS');
  }
  const warmup = new SchemaWarmup();
  const throttle = new LoginThrottle({ ...config.api.loginThrottle, ...clockOf(options) });
  const authenticator = new Authenticator({ accounts, sessions, throttle, audit: audit.recorder });
  const openid = config.api.authenticationTypes.includes('openid') ? new OpenIdSignIn({ settings: config.api.openid, accounts, trustedCAs: keystore.trustedCAs(), ...clockOf(options) }) : undefined;
  const app = await createApiServer(
    { logger, schemaWarmup: warmup, protocol: config.api.protocol, certificate: https ? keystore.certificate() : undefined, bodyLimitBytes: config.api.bodyLimitBytes, idleTimeoutMs: config.api.idleTimeoutSeconds * 1000, handshakeTimeoutMs: config.connections.handshakeTimeoutSeconds * 1000, liveFeed: options.liveFeed, consoleDir: options.consoleDir === undefined ? findConsoleDir() : options.consoleDir, docsDir: options.docsDir === undefined ? findDocsDir() : options.docsDir, corsOrigins: config.api.corsOrigins },
    {
      ...services,
      authenticator,
      types: config.api.authenticationTypes,
      openid,
      clientAuthTypes: clientAuthenticationTypes(config.authentication),
      accounts,
      sessions,
      secureCookies: https,
      crossSiteCookies: config.api.corsOrigins.length > 0,
      store,
      version: options.version,
      mediatorUptimes: () => services.mediators.uptimes(),
      listeningPorts: () => [...transports.bound.listening(), ...transports.listeners.bound().map((b) => ({ purpose: 'transactions' as const, ...b }))],
      requestRestart: parts.requestRestart,
      refusals: parts.refusals,
      audit: audit.recorder,
      audits: storage.audits,
      events,
      transactions: pipelines.log,
      transactionBodyCapBytes: config.router.maxBodyBytes,
      search: { enabled: parts.search.enabled, index: parts.search.index, countWithinMs: config.search.countWithinMs, health: () => parts.search.indexer?.health() ?? {} },
      bodies: storage.bodies,
      prometheus,
      prometheusPublic: config.prometheus.public,
      timeZone,
      auditCounts: transports.auditCounts,
      consoleLinks: () => core.console.links,
      logsDir: config.logging.file.enabled ? join(config.dataDir, 'logs') : null,
      ...(clock === undefined ? {} : { clock }),
      metadataKeystore: keystoreMetadata(keystore),
      backups,
      keystore,
      serverCertificate: () => keystore.certificate(),
      condition: disk.condition,
      attention: parts.attention.attention,
      channelAdmission: parts.attention.channelAdmission,
      // The trusted CAs as they are at each check: a CA added on the Certificates page counts at once.
      checkRoutes: (routes) => checkRoutes(routes, { trustedCAs: keystore.trustedCAs(), timeoutMs: config.router.routeCheckTimeoutMs }),
      storage: async (withInstances: boolean) => {
        if (!withInstances) return { engine: storage.cluster.engine };
        const about = await storage.cluster.about();
        const instances = about.instances.map((i) => ({ id: i.id, name: i.name, apiUrl: i.apiUrl, version: i.version, started: i.started.toISOString(), lastBeat: i.lastBeat.toISOString(), self: i.id === about.instanceId }));
        return { engine: about.engine, instances };
      },
    },
  );
  keystore.onChange(({ certificate, trustedCAs }) => {
    const server = app.server as unknown as { setSecureContext?: (options: object) => void };
    if (https) server.setSecureContext?.(listenerContext(certificate, trustedCAs));
    openid?.useTrustedCAs(trustedCAs);
  });
  return {
    offers: { app, warmup },
    async stop() {
      warmup.stop();
      await app.close();
      await openid?.close();
    },
  };
}
