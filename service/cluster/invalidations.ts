/**
 * What an instance does when another instance changed something it holds in memory: the same refresh its own write
 * would have caused. `app.ts` supplies the callbacks (the channel cache, the polling schedules, the tcp and tls
 * listeners, the keystore's reload, any cache of clients or users); a kind without one needs nothing refreshed.
 */
import type { Logger } from 'pino';
import { CHANGE_KINDS } from './change-bus.js';
import type { ChangeBus, ChangeKind } from './change-bus.js';

/** A refresh for each kind of change; `ids` is null when any document of the kind may have changed. */
export type Invalidations = Partial<Record<ChangeKind, (ids: readonly string[] | null) => void | Promise<void>>>;

/**
 * Subscribes `invalidations` to the bus: each notice runs its kind's refresh, a resync runs every one. Returns the way
 * to stop, and `applying()`, true while a remote keystore change is being applied (so the keystore's own change event
 * raised by that reload is not announced back, which would bounce between instances forever).
 */
export function applyRemoteChanges(bus: ChangeBus, invalidations: Invalidations, logger: Logger): { stop: () => void; applying: (kind: ChangeKind) => boolean } {
  const inProgress = new Map<ChangeKind, number>();
  const run = (kind: ChangeKind, ids: readonly string[] | null): void => {
    const refresh = invalidations[kind];
    if (refresh === undefined) return;
    inProgress.set(kind, (inProgress.get(kind) ?? 0) + 1);
    const done = (): void => {
      inProgress.set(kind, (inProgress.get(kind) ?? 1) - 1);
    };
    try {
      Promise.resolve(refresh(ids))
        .catch((err: unknown) => logger.error({ err, kind }, 'a change made by another instance could not be applied here'))
        .finally(done);
    } catch (err) {
      done();
      logger.error({ err, kind }, 'a change made by another instance could not be applied here');
    }
  };
  const stopChanges = bus.onChange((notice) => run(notice.kind, notice.ids));
  const stopResync = bus.onResync(() => {
    logger.info('reloading everything other instances may have changed while the notices were not heard');
    for (const kind of CHANGE_KINDS) run(kind, null);
  });
  return {
    stop: () => {
      stopChanges();
      stopResync();
    },
    applying: (kind) => (inProgress.get(kind) ?? 0) > 0,
  };
}
