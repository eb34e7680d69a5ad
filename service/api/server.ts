/** The management API server: HTTPS (or explicitly chosen HTTP), JSON only, every route schema-validated. */
import { fastify } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type { ServerCertificate } from '../tls/server-certificate.js';
import type { ChannelCatalogue } from '../channels/catalogue.js';
import type { ClientAccounts } from '../accounts/clients.js';
import type { Roles } from '../accounts/roles.js';
import type { ContactGroups } from '../contacts/groups.js';
import { answerClientError, answerIdleConnections, installErrorHandling, sendError } from './error-handler.js';
import { installJsonBodyParser } from './json-body.js';
import { lazySerializerFactory } from './lazy-serializers.js';
import { RequestLog } from './request-log.js';
import type { SchemaWarmup } from './schema-warmup.js';
import { tableSchemaCode } from './compiled-schemas.js';
import type { SchemaCode } from './compiled-schemas.js';
import { compiledSchemaTable } from './compiled-schema-table.js';
import { createValidatorCompiler } from './validation.js';
import { installAuthentication } from './auth/hook.js';
import type { AuthHookOptions } from './auth/hook.js';
import { authRoutes } from './routes/authenticate.js';
import type { AuthRoutesDeps } from './routes/authenticate.js';
import { openidRoutes } from './routes/openid.js';
import type { OpenIdRoutesDeps } from './routes/openid.js';
import { backupRoutes } from './routes/backup.js';
import type { BackupRoutesDeps } from './routes/backup.js';
import { serviceRoutes } from './routes/service.js';
import type { ServiceRoutesDeps } from './routes/service.js';
import { userRoutes } from './routes/users.js';
import { passwordTokenRoutes } from './routes/password-tokens.js';
import type { UserRoutesDeps } from './routes/users.js';
import { channelRoutes } from './routes/channels.js';
import { channelStatusRoutes } from './routes/channels-status.js';
import type { ChannelStatusRoutesDeps } from './routes/channels-status.js';
import { clientRoutes } from './routes/clients.js';
import { roleRoutes } from './routes/roles.js';
import { contactGroupRoutes } from './routes/contact-groups.js';
import { transactionRoutes } from './routes/transactions.js';
import type { TransactionRoutesDeps } from './routes/transactions.js';
import { taskRoutes } from './routes/tasks.js';
import type { TaskRoutesDeps } from './routes/tasks.js';
import { mediatorRoutes } from './routes/mediators.js';
import { metricsRoutes } from './routes/metrics.js';
import type { MetricsRoutesDeps } from './routes/metrics.js';
import type { MediatorRoutesDeps } from './routes/mediators.js';
import { notificationRoutes } from './routes/notifications.js';
import { auditRoutes } from './routes/audits.js';
import type { AuditRoutesDeps } from './routes/audits.js';
import type { NotificationRoutesDeps } from './routes/notifications.js';
import { logRoutes } from './routes/logs.js';
import type { LogRoutesDeps } from './routes/logs.js';
import { visualizerEventRoutes } from './routes/visualizer-events.js';
import type { VisualizerRoutesDeps } from './routes/visualizer-events.js';
import { refusalRoutes } from './routes/refusals.js';
import type { RefusalRoutesDeps } from './routes/refusals.js';
import { metadataRoutes } from './routes/metadata.js';
import type { KeystoreMetadata } from '../metadata/services.js';
import { keystoreRoutes } from './routes/keystore.js';
import { settingsRoutes } from './routes/settings.js';
import type { SettingsRoutesDeps } from './routes/settings.js';
import { attentionRoutes } from './routes/attention.js';
import type { Attention } from '../attention/attention.js';
import type { Keystore } from '../keystore/keystore.js';
import type { AccessCheckedChannel } from '../domain/channels/channel-access.js';
import { LiveFeed } from './live-feed.js';
import { registerConsole, registerNoIcon } from './console.js';
import { registerManual } from './manual.js';
import { installCors } from './cors.js';
import { installOriginCheck } from './origin-check.js';
import type { LiveFeedDeps, LiveFeedOptions } from './live-feed.js';

export interface ApiServerOptions {
  logger: Logger;
  /** Compiles the routes' schemas in the background once the caller starts it (after the service is ready). */
  schemaWarmup?: SchemaWarmup;
  /**
   * Where the routes' compiled validators and serializers come from: by default the code the bundle carries
   * (compiled-schema-table.ts, none in the TypeScript sources); the build passes its recorder here.
   */
  schemaCode?: SchemaCode;
  protocol: 'https' | 'http';
  certificate?: ServerCertificate;
  bodyLimitBytes: number;
  /** Longest a connection may stay silent in the middle of a request before the client gets 408 and is cut off. */
  idleTimeoutMs: number;
  /** How long a TLS handshake may take (`connections.handshakeTimeoutSeconds`); Node's 120 s otherwise. */
  handshakeTimeoutMs?: number;
  liveFeed?: LiveFeedOptions;
  /** The built console to serve at `/`; null serves none (the API works alone). */
  consoleDir?: string | null;
  /** The manual's Markdown folder to serve at `/docs` (manual.ts); null serves none. */
  docsDir?: string | null;
  /** Origins of consoles served elsewhere that may call the API from a browser (`api.corsOrigins`); none by default. */
  corsOrigins?: readonly string[];
}

/** The service modules the routes and the metadata export and import share, built once by the service (wings/services.ts). */
export interface ApiServices {
  channels: ChannelCatalogue;
  contactGroups: ContactGroups;
  clients: ClientAccounts;
  roles: Roles;
}

/** What the API is built from: services built elsewhere; the API builds none of its own. */
export type ApiDeps = AuthHookOptions &
  AuthRoutesDeps &
  OpenIdRoutesDeps &
  ServiceRoutesDeps &
  UserRoutesDeps &
  ApiServices &
  TransactionRoutesDeps &
  MediatorRoutesDeps &
  LiveFeedDeps &
  TaskRoutesDeps &
  NotificationRoutesDeps &
  AuditRoutesDeps &
  LogRoutesDeps &
  VisualizerRoutesDeps &
  MetricsRoutesDeps &
  RefusalRoutesDeps &
  BackupRoutesDeps &
  SettingsRoutesDeps &
  ChannelStatusRoutesDeps & {
    /** The keystore as export and import see it; without it, exports hold no KeystoreModelAPI. */
    metadataKeystore?: KeystoreMetadata;
    keystore: Keystore;
    /** The needs-attention list (`GET /attention`). */
    attention: Attention;
    /** Why nobody may use a channel, for the channel answers (wings/attention.ts). */
    channelAdmission: () => Promise<(channel: AccessCheckedChannel) => string | null>;
  };

/** Longest path parameter the router accepts; longer ones get 414 PATH_PARAMETER_TOO_LONG. */
export const MAX_PARAM_LENGTH = 500;

/** A route as registered, so tests can reach every route without keeping a list by hand. */
export interface RegisteredRoute {
  method: string;
  url: string;
  schema: Readonly<Record<string, unknown>>;
  /** Who may call it, as far as registration tells (the API reference's permission column, scripts/api-reference.ts). */
  access: RouteAccess;
}

/**
 * `public`: no credentials (`config.public`); `sometimes-public`: credentials unless the configuration makes the
 * request public (`config.publicWhen`); `admin`: the handler refuses all but admins (it calls `requireAdmin`);
 * `signed-in`: any signed-in user, the handler's own rules (a channel's ACL, one's own account) deciding the rest.
 */
export type RouteAccess = 'public' | 'sometimes-public' | 'admin' | 'signed-in';

function accessOf(config: { public?: boolean; publicWhen?: unknown } | undefined, handler: unknown): RouteAccess {
  if (config?.public === true) return 'public';
  if (config?.publicWhen !== undefined) return 'sometimes-public';
  // Read from the handler's own text: the guard is called there by name (guards.ts) in every route that has it; under
  // the tests' transform the call reads `(0, module.requireAdmin)(...)`.
  return typeof handler === 'function' && /\brequireAdmin\)?\s*\(/.test(handler.toString()) ? 'admin' : 'signed-in';
}

const registeredRoutes = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** The routes registered on an API server built by createApiServer, HEAD routes included. */
export function routesOf(app: FastifyInstance): readonly RegisteredRoute[] {
  return registeredRoutes.get(app) ?? [];
}

/** Builds the management API (not yet listening). */
export async function createApiServer(options: ApiServerOptions, deps: ApiDeps): Promise<FastifyInstance> {
  if (options.protocol === 'https' && options.certificate === undefined) throw new Error('HTTPS needs a server certificate');
  const tls =
    options.protocol === 'https' && options.certificate !== undefined
      ? { https: { cert: options.certificate.cert, key: options.certificate.key, passphrase: options.certificate.passphrase, minVersion: 'TLSv1.2' as const, ...(options.handshakeTimeoutMs === undefined ? {} : { handshakeTimeout: options.handshakeTimeoutMs }) } }
      : {};
  const log = options.logger.child({ component: 'api' });
  const reported = new Set<string>();
  // Only a bundle patched after its build, or a route the build's registration did not see, gets these; the route
  // still answers, compiled here instead.
  const report = (message: string) => (key: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    log.warn({ route: key }, message);
  };
  const schemaCode =
    options.schemaCode ??
    (compiledSchemaTable === null
      ? undefined
      : tableSchemaCode(compiledSchemaTable, {
          stale: report('a route schema differs from the one compiled at build time: compiled on first use instead (rebuild with npm run build:service)'),
          missing: report('a route schema was not compiled at build time: compiled on first use instead (see scripts/compile-schemas.ts)'),
        }));
  const serverOptions = {
    ...tls,
    loggerInstance: log as FastifyBaseLogger,
    // One line per answered request, its level by what it did: the console's routine reads are not logged at info.
    logController: new RequestLog(),
    bodyLimit: options.bodyLimitBytes,
    // Fastify sets no deadline by default, and Node 20 does not apply `requestTimeout` to HTTPS servers, so a client
    // that stops mid-body would hold its connection (and its request) forever. An idle deadline on the socket ends it.
    connectionTimeout: options.idleTimeoutMs,
    return503OnClosing: true,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory(options.schemaWarmup, schemaCode) } },
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    requestIdHeader: false,
    // A malformed percent-escape or an over-long path parameter is found by the router, before any route runs.
    frameworkErrors: sendError,
    clientErrorHandler: answerClientError,
  };
  // The HTTPS and HTTP variants differ only in the raw server type, which no route depends on.
  const app = fastify(serverOptions as FastifyServerOptions).withTypeProvider<TypeBoxTypeProvider>();

  const routes: RegisteredRoute[] = [];
  registeredRoutes.set(app, routes);
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    // Worked out only when asked for: the text of every handler is not read at each start.
    let access: RouteAccess | undefined;
    const config = route.config as { public?: boolean; publicWhen?: unknown } | undefined;
    for (const method of [route.method].flat()) {
      routes.push({
        method,
        url: route.url,
        schema,
        get access() {
          access ??= accessOf(config, route.handler);
          return access;
        },
      });
    }
  });

  app.setValidatorCompiler(createValidatorCompiler(options.schemaWarmup, schemaCode));
  const warmup = options.schemaWarmup;
  if (warmup !== undefined) {
    // The background compiles wait while a request is answered, so the console's first requests do not queue behind them.
    app.addHook('onRequest', (_request, reply, done) => {
      reply.raw.once('close', warmup.hold());
      done();
    });
  }
  // The API speaks JSON only: a text body is refused with 415 instead of reaching the validator as a string.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  installErrorHandling(app);
  answerIdleConnections(app);
  installOriginCheck(app, options.corsOrigins ?? []);
  // Before authentication, so that a preflight (which carries no credentials) is answered rather than refused.
  await installCors(app, options.corsOrigins ?? []);
  await app.register(cookie);
  installAuthentication(app, deps);

  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('x-content-type-options', 'nosniff');
    // The console's files set their own caching; every API answer is private and current.
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
    return payload;
  });

  await app.register(serviceRoutes(deps));
  await app.register(authRoutes(deps));
  await app.register(openidRoutes(deps));
  await app.register(userRoutes(deps));
  await app.register(passwordTokenRoutes(deps));
  const { channels, contactGroups, clients, roles } = deps;
  await app.register(channelRoutes({ channels, channelAdmission: deps.channelAdmission }));
  await app.register(channelStatusRoutes(deps));
  await app.register(clientRoutes({ clients }));
  await app.register(roleRoutes({ roles }));
  await app.register(contactGroupRoutes({ contactGroups }));
  await app.register(transactionRoutes({ ...deps, warmup: options.schemaWarmup }));
  await app.register(taskRoutes(deps));
  await app.register(mediatorRoutes(deps));
  await app.register(notificationRoutes(deps));
  await app.register(metricsRoutes(deps));
  await app.register(auditRoutes(deps));
  await app.register(logRoutes(deps));
  await app.register(visualizerEventRoutes(deps));
  await app.register(refusalRoutes(deps));
  // Export and import work through the same service modules as the routes above (the channel catalogue shared).
  await app.register(
    metadataRoutes({ channels, contactGroups, clients, users: deps.accounts, mediators: deps.mediators, sessions: deps.sessions, ...(deps.metadataKeystore === undefined ? {} : { keystore: deps.metadataKeystore }) }),
  );
  await app.register(backupRoutes(deps));
  await app.register(keystoreRoutes({ keystore: deps.keystore, clients }));
  await app.register(settingsRoutes(deps));
  await app.register(attentionRoutes({ attention: deps.attention, channels }));
  if (options.consoleDir !== undefined && options.consoleDir !== null) await registerConsole(app, options.consoleDir);
  else registerNoIcon(app);
  if (options.docsDir !== undefined && options.docsDir !== null) await registerManual(app, options.docsDir);
  new LiveFeed(deps, app.log, { ...options.liveFeed, corsOrigins: options.corsOrigins ?? [] }).attach(app);
  return app;
}
