/**
 * The client guard wing: who sent a transaction, with one failure throttle for every transaction port (a guesser gets
 * no fresh budget by switching port or transport), and the audit summaries of failed client logins and of clients
 * refused on a channel.
 */
import { ClientAuthenticator } from '../pipeline/authenticate.js';
import { FailureThrottle } from '../accounts/login-throttle.js';
import { FailedLoginAudit } from '../audit/failed-logins.js';
import { RefusedNodeAudit } from '../audit/refused-nodes.js';
import type { AuditRecorder } from '../audit/recorder.js';
import type { Store } from '../storage/store.js';
import { clockOf, Periodic } from './core.js';
import type { Core } from './core.js';
import type { Wing } from './lifecycle.js';

const SUMMARY_FLUSH_MS = 60_000;

export interface ClientGuard {
  clientAuth: ClientAuthenticator;
  refusedNodes: RefusedNodeAudit;
}

export function clientGuardWing(core: Core, store: Store, audit: AuditRecorder): Wing<ClientGuard> {
  const { config, logger, options } = core;
  const limits = config.authentication.throttle;
  const now = clockOf(options);
  const failedClientLogins = new FailedLoginAudit({ audit, windowSeconds: limits.windowSeconds, ...now });
  // Clients refused on a channel (node authentication) are summarised per address over the same window.
  const refusedNodes = new RefusedNodeAudit({ audit, windowSeconds: limits.windowSeconds, ...now });
  const periodic = new Periodic(logger);
  // Summaries are also written as failures arrive; this covers a flood that stops and is followed by quiet.
  periodic.every(SUMMARY_FLUSH_MS, () => failedClientLogins.flushEnded());
  periodic.every(SUMMARY_FLUSH_MS, () => refusedNodes.flushEnded());
  const throttle = new FailureThrottle({
    maxFailuresPerIdentityAndAddress: limits.maxFailuresPerClientPerAddress,
    maxFailuresPerIdentity: limits.maxFailuresPerClient,
    maxFailuresPerAddress: limits.maxFailuresPerAddress,
    windowSeconds: limits.windowSeconds,
    ...now,
  });
  const clientAuth = new ClientAuthenticator({ clients: store.clients, settings: config.authentication, guard: { throttle, failures: failedClientLogins } });
  return {
    offers: { clientAuth, refusedNodes },
    halt: () => periodic.halt(),
    // Failures counted but not yet summarised would otherwise be lost with the process.
    async stop() {
      await failedClientLogins.flushAll();
      await refusedNodes.flushAll();
    },
  };
}
