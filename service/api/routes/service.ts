/**
 * The service's own status: the public `GET /heartbeat` (OpenHIM's uptimes of the core and of each mediator) and
 * `GET /health` (the store's state; 503 until it is ready), `GET /about` for any user (versions and time zone;
 * admins also get the ports being listened on), and `POST /restart` for admins (answered first, then the service
 * stops cleanly and its supervisor starts it again).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import { isPlainObject } from '../../domain/util/plain-object.js';
import { X509Certificate } from 'node:crypto';
import type { AboutAnswer, AboutAudits, AboutCertificate, AboutStorage, DiskSpace, HealthAnswer, HeartbeatAnswer, ServicePort } from '../../contracts/api.js';
import { isAdmin } from '../../domain/access/permissions.js';
import type { Store } from '../../storage/store.js';
import { currentUser } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
import { AboutAnswerSchema } from '../schemas/service.js';
import { MessageAnswerSchema, NoQuery } from '../schemas/common.js';

export interface ServiceRoutesDeps {
  store: Store;
  version: string;
  /** Mediator uptimes for the heartbeat, by URN; null for a mediator silent for longer than `mediators.offlineAfterSeconds`. */
  mediatorUptimes: () => Promise<Record<string, number | null>>;
  /** The ports being listened on (the real ones, not only the configured ones); empty until the service is up. */
  listeningPorts: () => readonly ServicePort[];
  /** Asks the process to stop cleanly and be started again; called once the restart's answer has been sent. */
  requestRestart: (by: string) => void;
  /** The zone metrics, alerts and reports use (the `timeZone` setting, or the system's): what `serverTimezone` says. */
  timeZone: string;
  /** The audit repository's and audit sender's counts, for admins. */
  auditCounts: () => AboutAudits;
  /** The console address links in emails use, and whether it is configured (`alerts.consoleURL`), for admins. */
  consoleLinks?: () => { url: string; configured: boolean };
  /** The storage engine and the instances alive now (with `self` on this one), for /about. */
  storage: (withInstances: boolean) => Promise<AboutStorage>;
  /** The data folder's free space and the problems an admin should act on (low space, a failing log file). */
  condition?: () => { disk?: DiskSpace; warnings: string[] };
  /** The server certificate being served, for its validity and fingerprint on /about. */
  serverCertificate?: () => { cert: string; fingerprint256: string; validTo: Date; source: AboutCertificate['source'] };
}

function aboutCertificate(deps: ServiceRoutesDeps): { certificate: AboutCertificate } | Record<string, never> {
  const served = deps.serverCertificate?.();
  if (served === undefined) return {};
  return { certificate: { validFrom: new Date(new X509Certificate(served.cert).validFrom).toISOString(), validTo: served.validTo.toISOString(), fingerprint256: served.fingerprint256, source: served.source } };
}

/** The disk's state for everyone (the console's banner reads it); the warnings in words for admins. */
function aboutCondition(deps: ServiceRoutesDeps, admin: boolean): Pick<AboutAnswer, 'disk' | 'warnings'> {
  const condition = deps.condition?.();
  if (condition === undefined) return {};
  return { ...(condition.disk === undefined ? {} : { disk: condition.disk }), ...(admin ? { warnings: condition.warnings } : {}) };
}

/** OpenHIM's answer text for `POST /restart` (OpenHIM sends it as plain text; Junction answers JSON everywhere). */
export const RESTART_MESSAGE = 'Server being restarted';

/** A restart request carries no body or an empty object; a body schema would refuse the former, so it is checked here. */
function checkRestartBody(body: unknown): void {
  if (body === undefined || (isPlainObject(body) && Object.keys(body).length === 0)) return;
  throw new AppError('VALIDATION_FAILED', 'POST /restart takes no body (or an empty object {})');
}

export function serviceRoutes(deps: ServiceRoutesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/heartbeat', { config: { public: true }, schema: { querystring: NoQuery } }, async (): Promise<HeartbeatAnswer> => ({
      master: process.uptime(),
      mediators: await deps.mediatorUptimes(),
      now: Date.now(),
    }));

    app.get('/about', { schema: { querystring: NoQuery, response: { 200: AboutAnswerSchema } } }, async (request): Promise<AboutAnswer> => {
      const admin = isAdmin(currentUser(request));
      return {
        currentCoreVersion: deps.version,
        serverTimezone: deps.timeZone,
        product: 'Junction',
        version: deps.version,
        nodeVersion: process.version,
        ...(admin ? { ports: [...deps.listeningPorts()], audits: deps.auditCounts() } : {}),
        ...(admin && deps.consoleLinks !== undefined ? { messageLinks: deps.consoleLinks() } : {}),
        ...aboutCertificate(deps),
        storage: await deps.storage(admin),
        ...aboutCondition(deps, admin),
      };
    });

    app.post(
      '/restart',
      {
        schema: { querystring: NoQuery, response: { 200: MessageAnswerSchema } },
        // Only once the answer is written, so that the caller learns the restart was accepted before the API closes.
        onResponse: async (request, reply) => {
          if (reply.statusCode === 200) deps.requestRestart(currentUser(request).email);
        },
      },
      (request) => {
        const user = requireAdmin(request, 'restart the service');
        checkRestartBody(request.body);
        request.log.info({ by: user.email }, 'restart requested over the API');
        return { message: RESTART_MESSAGE };
      },
    );

    app.get('/health', { config: { public: true }, schema: { querystring: NoQuery } }, async (_request, reply): Promise<HealthAnswer> => {
      const health = deps.store.health();
      const condition = deps.condition?.() ?? { warnings: [] };
      // Refusing transactions for lack of disk space, or a database that does not answer, is not being available.
      const ok = health.state === 'ready' && health.unreachable === undefined && condition.disk?.refusing !== true;
      void reply.code(ok ? 200 : 503);
      return {
        status: ok ? 'ok' : 'unavailable',
        store: { engine: health.engine, state: health.state, problems: health.problems.length, ...(health.unreachable === undefined ? {} : { unreachable: health.unreachable }) },
        uptimeSeconds: Math.floor(process.uptime()),
        ...(condition.disk === undefined ? {} : { disk: condition.disk }),
        warnings: condition.warnings,
      };
    });
  };
}
