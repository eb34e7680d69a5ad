/**
 * Which clock the cluster's times are written in. Instances on different machines disagree about the time, so beats
 * and lease expiries are read from the one clock they share, the database's; tests pass a clock they move by hand
 * instead, so that "dead for 30 s" needs no 30 s of waiting.
 */

import type { ClusterClock } from '../../cluster/instances.js';

export type { ClusterClock };

/** The SQL parameter for `COALESCE($n::timestamptz, now())`: the injected time, or null for the database's. */
export function clockParam(clock: ClusterClock): Date | null {
  return clock === undefined ? null : new Date(clock());
}

/** The SQL for "now" in the cluster's clock, given the placeholder of `clockParam`. */
export function nowSql(placeholder: string): string {
  return `COALESCE(${placeholder}::timestamptz, now())`;
}
