/**
 * Where a sender sends to a channel, and what its listener is doing, in the words of the channel list (issue 36).
 * Pure: the caller passes the ports as bound and the host name other machines reach this one by.
 */
import type { ChannelListener, ChannelStatusRow, ChannelType, TcpFraming } from '../../contracts/channels.js';
import { channelKind } from './channel-kinds.js';

/** The transaction ports as bound, and the host a sender on the LAN reaches Junction by. */
export interface SenderPorts {
  /** The host name or address to show; a wildcard listening address means nothing to a sender. */
  host: string;
  /** The address the transaction ports listen on (`router.host`). */
  routerHost: string;
  httpsPort?: number;
  httpPort?: number;
}

/** The fields of a channel its address depends on. */
export interface AddressedChannel {
  type: ChannelType;
  urlPattern: string;
  tcpHost?: string;
  tcpPort?: number;
  tcpFraming?: TcpFraming;
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

function hostPart(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** A listening address as a sender reaches it: the address itself, or the shown host name for a wildcard. */
function reachableHost(listening: string | undefined, shown: string): string {
  return hostPart(listening === undefined || WILDCARDS.has(listening) ? shown : listening);
}

// What ends the literal start of a pattern: any character with a meaning of its own.
const SPECIAL = new Set(['.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '$', '^']);
// A quantifier after a character makes that character optional, so it is not part of every matching path.
const OPTIONAL_AFTER = new Set(['?', '*', '{']);

/**
 * The path every request a URL pattern matches starts with: `^/fhir(/.*)?$` → `/fhir`, not exact; `^/lab/orders$`
 * → `/lab/orders`, exact. Null when the pattern does not start with a literal path (such as `^(/a|/b)$`).
 */
export function patternPath(pattern: string): { path: string; exact: boolean } | null {
  let i = pattern.startsWith('^') ? 1 : 0;
  let path = '';
  let exact = false;
  while (i < pattern.length) {
    const c = pattern[i] ?? '';
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      // `\d`, `\w`, `\s`… are classes, not the letter: the literal ends there.
      if (next === '' || /[A-Za-z0-9]/.test(next)) break;
      path += next;
      i += 2;
      continue;
    }
    if (SPECIAL.has(c)) {
      if (OPTIONAL_AFTER.has(c)) path = path.slice(0, -1);
      else if (c === '$' && i === pattern.length - 1 && pattern.startsWith('^')) exact = true;
      break;
    }
    path += c;
    i++;
  }
  return path.startsWith('/') ? { path, exact } : null;
}

/** The addresses a sender uses, preferred first (contracts/channels.ts `ChannelStatusRow.addresses`). */
export function senderAddresses(channel: AddressedChannel, ports: SenderPorts): string[] {
  const kind = channelKind(channel.type);
  if (kind === undefined || kind.entry === 'poll') return [];
  if (kind.listener !== null) {
    if (channel.tcpPort === undefined) return [];
    const scheme = kind.listener === 'tls' ? 'tls' : channel.tcpFraming === 'stream' ? 'tcp' : 'mllp';
    return [`${scheme}://${reachableHost(channel.tcpHost, ports.host)}:${channel.tcpPort}`];
  }
  const found = patternPath(channel.urlPattern);
  const path = found === null ? '/…' : `${found.path}${found.exact ? '' : '…'}`;
  const host = reachableHost(ports.routerHost, ports.host);
  return [
    ...(ports.httpsPort === undefined ? [] : [`https://${host}:${ports.httpsPort}${path}`]),
    ...(ports.httpPort === undefined ? [] : [`http://${host}:${ports.httpPort}${path}`]),
  ];
}

/** A channel's listener in the list's words: only tcp and tls channels have one; a disabled one does not listen. */
export function listenerCondition(channel: { type: ChannelType; status: string; tcpPort?: number }, listener: ChannelListener | undefined): ChannelStatusRow['listener'] {
  if ((channelKind(channel.type)?.listener ?? null) === null) return { condition: 'none' };
  const port = listener?.port ?? channel.tcpPort;
  const at = port === undefined ? {} : { port };
  if (channel.status === 'deleted') return { condition: 'off', reason: 'the channel is deleted', ...at };
  if (channel.status !== 'enabled') return { condition: 'off', reason: 'the channel is disabled', ...at };
  switch (listener?.state) {
    case 'listening':
      return { condition: 'listening', ...at };
    case 'failed':
      return { condition: 'not-bound', reason: listener.error ?? 'the port could not be bound', ...at };
    case 'stopped':
      return { condition: 'off', reason: 'the listener was stopped', ...at };
    default:
      // Being bound, or not yet looked at by the listeners (just after a start or a save).
      return { condition: 'starting', ...at };
  }
}
