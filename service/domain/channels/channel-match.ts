/**
 * Which channel a request belongs to, and whether the caller may use it (SPEC.md "Request handling", COMPAT.md).
 * Pure: the pipeline gathers the facts (path, method, content type, body, client, address) and asks these.
 */
import { DOMParser } from '@xmldom/xmldom';
import xpath from 'xpath';
import type { Channel } from '../../contracts/channels.js';
import { channelKind } from './channel-kinds.js';
import { cachedPattern } from '../util/safe-pattern.js';

export type MatchableChannel = Pick<
  Channel,
  | '_id'
  | 'name'
  | 'type'
  | 'status'
  | 'priority'
  | 'urlPattern'
  | 'methods'
  | 'matchContentTypes'
  | 'matchContentRegex'
  | 'matchContentXpath'
  | 'matchContentJson'
  | 'matchContentValue'
>;

export type AuthorisableChannel = Pick<Channel, 'authType' | 'allow' | 'whitelist'>;

export interface MatchRequest {
  /** Path without the query string. */
  path: string;
  method: string;
  /** The Content-Type header, parameters included or not. */
  contentType?: string;
}

export interface ClientIdentity {
  clientID: string;
  roles: readonly string[];
}

// Patterns are checked when a channel is saved; one stored before that check that cannot run in linear time simply
// never matches (start-up warns about it once). The cache keeps matching from recompiling per request.
function patternMatches(pattern: string, text: string): boolean {
  const compiled = cachedPattern(pattern);
  return compiled.ok && compiled.pattern.test(text);
}

/** Channels in matching order: priority 1 first, channels without a priority last, ties in the given order. */
export function byPriority<T extends Pick<Channel, 'priority'>>(channels: readonly T[]): T[] {
  return channels
    .map((channel, index) => ({ channel, index }))
    .sort((a, b) => (a.channel.priority ?? Infinity) - (b.channel.priority ?? Infinity) || a.index - b.index)
    .map(({ channel }) => channel);
}

/** True when the channel can only be chosen after reading the request body. */
export function needsBody(channel: MatchableChannel): boolean {
  return channel.matchContentRegex !== undefined || channel.matchContentXpath !== undefined || channel.matchContentJson !== undefined;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The checks that need no body: enabled http channel, URL pattern, method (empty = all), content type. */
export function matchesRequest(channel: MatchableChannel, request: MatchRequest): boolean {
  if (channel.status !== 'enabled' || channelKind(channel.type)?.entry !== 'request') return false;
  if (!patternMatches(channel.urlPattern, request.path)) return false;
  if (channel.methods.length > 0 && !channel.methods.some((m) => m.toUpperCase() === request.method.toUpperCase())) return false;
  if (channel.matchContentTypes.length > 0) {
    const type = mediaType(request.contentType);
    if (!channel.matchContentTypes.some((t) => mediaType(t) === type)) return false;
  }
  return true;
}

function jsonValueAt(document: unknown, path: string): unknown {
  let value = document;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function xpathValue(body: string, expression: string): string | undefined {
  try {
    // Malformed XML simply does not match; the parser must not write to the console about it.
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    });
    const doc = parser.parseFromString(body, 'text/xml');
    const result = xpath.select(expression, doc as unknown as Node);
    if (Array.isArray(result)) {
      const first = result[0];
      return first === undefined ? undefined : (first.textContent ?? undefined);
    }
    return typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean' ? String(result) : undefined;
  } catch {
    return undefined;
  }
}

/** The body checks: RegEx, XPath + value, or JSON property path + value. A body that does not parse never matches. */
export function matchesBody(channel: MatchableChannel, body: string): boolean {
  if (channel.matchContentRegex !== undefined && !patternMatches(channel.matchContentRegex, body)) return false;
  if (channel.matchContentXpath !== undefined && xpathValue(body, channel.matchContentXpath) !== channel.matchContentValue) return false;
  if (channel.matchContentJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return false;
    }
    const value = jsonValueAt(parsed, channel.matchContentJson);
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    if (scalar === undefined || scalar !== channel.matchContentValue) return false;
  }
  return true;
}

/** The first channel, by priority, whose every check passes; `body` is needed only when some candidate matches on it. */
export function findChannel<T extends MatchableChannel>(channels: readonly T[], request: MatchRequest, body?: string): T | undefined {
  return byPriority(channels).find((c) => matchesRequest(c, request) && (!needsBody(c) || (body !== undefined && matchesBody(c, body))));
}

function plainAddress(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** Public channels admit anyone; whitelisted addresses need no client; private channels need the client or a role in `allow`. */
export function authorise(channel: AuthorisableChannel, client: ClientIdentity | null, address: string): boolean {
  if (channel.authType === 'public') return true;
  if (channel.whitelist.map(plainAddress).includes(plainAddress(address))) return true;
  if (client === null) return false;
  return channel.allow.some((entry) => entry === '*' || entry === client.clientID || client.roles.includes(entry));
}
