/**
 * A tcp or tls channel's listener in words for the channel list: what state it is in, on which port, and for a port
 * that could not be bound, why, said plainly (the service's error text is shown with it). Never colour alone.
 */
import type { Channel, ChannelListener } from '../../../../service/contracts/channels';
import { channelKind } from '../../data/kinds';

export interface ListenerSummary {
  /** The badge text: `Listening on 2575`, `Port 2575: in use by another program`. */
  label: string;
  color: 'teal' | 'yellow' | 'red' | 'gray';
  /** The service's own words for a failure, shown under the badge. */
  detail?: string;
}

/** The address part of a label: the port alone when the listener takes every address. */
function place(listener: Pick<ChannelListener, 'host' | 'port'>): string {
  const everywhere = listener.host === '' || listener.host === '0.0.0.0' || listener.host === '::';
  return everywhere ? String(listener.port) : `${listener.host.includes(':') ? `[${listener.host}]` : listener.host}:${listener.port}`;
}

/** Why a bind failed, from the error the service reports (Node's codes and its own wording). */
export function failureReason(error: string | undefined): string {
  const text = error ?? '';
  if (/EADDRINUSE|in use/i.test(text)) return 'in use by another program';
  if (/EACCES|EPERM|not permitted|permission/i.test(text)) return 'not permitted (ports below 1024 need special rights)';
  if (/EADDRNOTAVAIL|not available/i.test(text)) return 'the address is not one of this computer’s';
  if (/ENOTFOUND|EAI_/i.test(text)) return 'the address could not be resolved';
  return 'could not listen';
}

/** The listener of a channel as the list shows it, or null for channels that have none (or a service that does not report it). */
export function listenerSummary(channel: Pick<Channel, 'type' | 'listener'>): ListenerSummary | null {
  const listener = channel.listener;
  if (!channelKind(channel.type).listens || listener === undefined) return null;
  switch (listener.state) {
    case 'listening':
      return { label: `Listening on ${place(listener)}`, color: 'teal' };
    case 'starting':
      return { label: `Starting on ${place(listener)}`, color: 'yellow' };
    case 'failed':
      return { label: `Port ${place(listener)}: ${failureReason(listener.error)}`, color: 'red', ...(listener.error === undefined ? {} : { detail: listener.error }) };
    case 'stopped':
      return { label: `Not listening (port ${place(listener)})`, color: 'gray' };
  }
}
