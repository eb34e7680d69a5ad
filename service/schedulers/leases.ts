/**
 * Scheduled work across several instances: before a run, the registry takes (or renews) the job's lease, and a run
 * its timer planned also claims its slot, so a job runs on one instance at a time and a planned tick runs once across
 * the cluster. The embedded engine has one instance, so it grants everything without asking anyone.
 */

export interface JobLeases {
  /** How often a run still going renews its lease, so a long run does not lose it to another instance. */
  readonly renewEveryMs: number;
  /** Takes the lease of `job`, or renews it when this instance holds it; false while another instance holds it. */
  take(job: string): Promise<boolean>;
  /** Claims the planned run of `job` in `slot` (epoch ms); false when that slot, or a later one, was claimed already. */
  claimTick(job: string, slot: number): Promise<boolean>;
  /** Gives the lease of `job` up, if this instance holds it, so another need not wait for it to expire. */
  release(job: string): Promise<void>;
}

/** The planned slot of an interval job's run at `when`: the same for every instance whose timer fires in that interval. */
export function intervalSlot(when: number, everyMs: number): number {
  return Math.floor(when / everyMs) * everyMs;
}

/** The slot of a cron job's run: its planned time to the second (cron's finest unit), whatever the timer's jitter. */
export function cronSlot(due: number): number {
  return Math.round(due / 1000) * 1000;
}
