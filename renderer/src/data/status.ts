/**
 * The five transaction statuses, their colours, and how times are shown; shared by the dashboard, the transaction and
 * audit pages and the stores (the badge that draws a status is `components/StatusBadge.tsx`).
 */
import type { MantineColor } from '@mantine/core';
import type { TransactionStatus } from '../../../service/contracts/transactions';

export const STATUSES: readonly TransactionStatus[] = ['Processing', 'Failed', 'Completed', 'Completed with error(s)', 'Successful'];

export const STATUS_COLOR: Record<TransactionStatus, MantineColor> = {
  Processing: 'blue',
  Failed: 'red',
  Completed: 'yellow',
  'Completed with error(s)': 'orange',
  Successful: 'teal',
};

export function isStatus(value: string): value is TransactionStatus {
  return (STATUSES as readonly string[]).includes(value);
}

const TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A date as local date and time, or a dash. */
export function formatTime(iso: string | undefined): string {
  if (iso === undefined) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : TIME.format(date);
}

const SHORT_TIME = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** A date compactly (no year), for table cells; `formatTime` gives the full one. */
export function formatShortTime(iso: string | undefined): string {
  if (iso === undefined) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : SHORT_TIME.format(date);
}

/** When a transaction was received, from its id (the first 8 hex digits are epoch seconds, MongoDB ObjectId layout). */
export function timeFromId(id: string): Date | null {
  if (!/^[0-9a-f]{8}/i.test(id)) return null;
  return new Date(parseInt(id.slice(0, 8), 16) * 1000);
}
