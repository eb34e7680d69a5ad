/**
 * A channel's "is it working?" row (`GET /channels/status`, issue 36) in the list's words: today's counts, when the
 * last message came, and what its listener is doing. Never colour alone: each state is said in words too.
 */
import type { ChannelStatusRow, RouteCheckOutcome } from '../../../../service/contracts/channels';
import { failureReason } from './listener';

export interface Worded {
  label: string;
  color: 'teal' | 'yellow' | 'red' | 'gray' | 'dimmed';
  /** More words, such as the service's own error text for a port that could not be bound. */
  detail?: string;
}

/** The listener's state: `Listening on 2575`, `Not bound: port 2575 in use by another program`, `Not listening: the channel is disabled`. */
export function listenerWords(listener: ChannelStatusRow['listener']): Worded | null {
  const port = listener.port === undefined ? '' : ` on ${listener.port}`;
  switch (listener.condition) {
    case 'none':
      return null;
    case 'listening':
      return { label: `Listening${port}`, color: 'teal' };
    case 'starting':
      return { label: `Starting${port}`, color: 'yellow' };
    case 'not-bound':
      return { label: `Not bound${listener.port === undefined ? '' : `: port ${listener.port}`} ${failureReason(listener.reason)}`, color: 'red', ...(listener.reason === undefined ? {} : { detail: listener.reason }) };
    case 'off':
      return { label: `Not listening: ${listener.reason ?? 'stopped'}`, color: 'gray' };
  }
}

/** `12 received, 1 failed, 3 refused`; each count in its own words for the cell's lines. */
export function todayWords(today: ChannelStatusRow['today']): { received: string; failed: string; refused: string } {
  return { received: `${today.received} received`, failed: `${today.failed} failed`, refused: `${today.refused} refused` };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** When the last message came, relative to `now`: `just now`, `5 min ago`, `3 h ago`, `2 days ago`, `never`. */
export function lastMessageWords(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const ago = Math.max(0, now - at);
  if (ago < MINUTE) return 'just now';
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  const days = Math.floor(ago / DAY);
  return days === 1 ? 'yesterday' : `${days} days ago`;
}

/** A route check's outcome in a word or two, for its badge; the service's sentence goes beside it. */
export const CHECK_OUTCOME: Record<RouteCheckOutcome, Worded> = {
  ok: { label: 'Reached', color: 'teal' },
  refused: { label: 'Refused', color: 'red' },
  timeout: { label: 'Timed out', color: 'red' },
  certificate: { label: 'Certificate not trusted', color: 'red' },
  tls: { label: 'TLS failed', color: 'red' },
  dns: { label: 'Name not found', color: 'red' },
  unreachable: { label: 'Unreachable', color: 'red' },
  reset: { label: 'Connection reset', color: 'red' },
  other: { label: 'Failed', color: 'red' },
};
