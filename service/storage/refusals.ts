/**
 * The refusal log (issue 35): one row per minute, listener, channel, sender address and reason, with how many came,
 * the first and last time and one sample detail. Rows are added in batches by the refusal recorder
 * (refusals/recorder.ts), which folds repeats in memory first; adding a row whose key is already stored adds its count.
 */
import type { RefusalKind } from '../contracts/refusals.js';

/** One folded row as the recorder hands it over. Times are epoch milliseconds. */
export interface RefusalRow {
  minute: number;
  first: number;
  last: number;
  reason: RefusalKind;
  listener: string;
  port: number | null;
  /** '' when no channel was known. */
  channelId: string;
  channelName: string;
  address: string;
  client: string | null;
  count: number;
  detail: string;
}

export interface StoredRefusal extends RefusalRow {
  id: string;
}

/** The list's filters, combined with AND. */
export interface RefusalFilter {
  /** Rows whose last refusal is at or after this. */
  from?: number;
  /** Rows whose first refusal is at or before this. */
  to?: number;
  /** Only these channels (an empty list matches nothing; rows without a channel match only when undefined). */
  channelIds?: readonly string[];
  reasons?: readonly RefusalKind[];
  address?: string;
}

/** A channel's refusals counted over a span. */
export interface ChannelRefusalCount {
  channelId: string;
  channelName: string;
  count: number;
  /** The latest refusal counted, epoch ms. */
  last: number;
}

export interface RefusalLogPage {
  items: StoredRefusal[];
  total: number;
  refused: number;
}

export interface RefusalLog {
  open(): Promise<void>;
  /** Adds the rows in one write; a row whose key is stored adds its count and widens its times. */
  add(rows: readonly RefusalRow[]): Promise<void>;
  /** A page of the rows matching `filter`, newest last refusal first, how many rows match in all and the sum of their counts. */
  page(filter: RefusalFilter, window: { limit: number; skip: number }): Promise<RefusalLogPage>;
  /** Per channel, the refusals whose minute is in [from, to): rows without a channel are left out. */
  countsByChannel(from: number, to: number): Promise<ChannelRefusalCount[]>;
  /** Removes the rows whose minute is before `before`; resolves with how many. */
  removeBefore(before: number): Promise<number>;
  close(): Promise<void>;
}
