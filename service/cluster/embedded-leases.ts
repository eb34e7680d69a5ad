/** The job leases of the embedded engine: a single instance, so every take and claim is granted without asking. */
import type { JobLeases } from '../schedulers/leases.js';

export const embeddedLeases: JobLeases = {
  renewEveryMs: 60_000,
  take: () => Promise.resolve(true),
  claimTick: () => Promise.resolve(true),
  release: () => Promise.resolve(),
};
