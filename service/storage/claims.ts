/**
 * Claims on shared work (a re-run task, a message being sent, an auto retry being made): a record names the
 * instance working on it and until when. Several instances on one database race for a record with one conditional
 * update each (`updateMany` with `claimable` in its filter); both engines apply such an update atomically (one SQL
 * statement on PostgreSQL, NeDB's single executor), so exactly one of them changes the record and goes ahead. A claim
 * that is not renewed runs out, and the work of an instance that died is taken over by another.
 */
import type { Filter } from './store.js';

/** The fields a claimable record carries. */
export interface Claimed {
  /** The instance working on the record now. */
  claimedBy?: string;
  /** When the claim runs out unless renewed. */
  claimedUntil?: Date;
}

/**
 * The claimer of the embedded engine, which one process uses at a time: the same after a restart, so the claims a
 * crash left are the restarted process's own at once instead of after they run out.
 */
export const SINGLE_INSTANCE = 'single-instance';

/** Matches records nobody holds now: never claimed, claim run out, or held by `claimer` itself. */
export function claimable(claimer: string, now: Date): Filter {
  return { $or: [{ claimedUntil: { $exists: false } }, { claimedUntil: { $lte: now } }, { claimedBy: claimer }] };
}

/** True when someone other than `claimer` holds the record's claim and it has not run out. */
export function heldByAnother(record: Claimed, claimer: string, now: Date): boolean {
  return record.claimedUntil !== undefined && record.claimedUntil.getTime() > now.getTime() && record.claimedBy !== claimer;
}

/** The changes taking or renewing a claim. */
export function claimFor(claimer: string, now: Date, claimMs: number): { claimedBy: string; claimedUntil: Date } {
  return { claimedBy: claimer, claimedUntil: new Date(now.getTime() + claimMs) };
}

/** The fields a released claim drops. */
export const CLAIM_FIELDS = ['claimedBy', 'claimedUntil'] as const;
