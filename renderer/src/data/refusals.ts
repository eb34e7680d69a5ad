/** Refusal reasons in words, for the Refused list and the dashboard (the API's names are in contracts/refusals.ts). */
import type { RefusalKind } from '../../../service/contracts/refusals';

export const REFUSAL_WORDS: Record<RefusalKind, { label: string; help: string }> = {
  no_channel: { label: 'No channel matched', help: 'No channel matches the request (HTTP 404)' },
  unauthenticated: { label: 'Authentication failed', help: "The client's credentials or certificate were refused (401)" },
  not_allowed: { label: 'Not allowed on the channel', help: "The channel's access rules or allow list do not admit the client or address (HTTP 401, MLLP AR)" },
  throttled: { label: 'Throttled', help: 'Too many failed authentications from the address (429)' },
  too_large: { label: 'Too large', help: 'Over a size limit (413, or an MLLP message over tcp.maxMessageBytes)' },
  connection_limit: { label: 'Too many connections', help: 'Over a connection limit: the connection was closed at once' },
  timeout: { label: 'Too slow', help: 'A connection closed by a deadline (request head, frame, TLS handshake, silence)' },
  malformed: { label: 'Malformed', help: 'Unreadable framing, a frame that is not HL7 v2, or a malformed HTTP request' },
  store_unavailable: { label: 'Not accepting', help: 'Junction was not accepting transactions (the disk below its free-space floor)' },
};

/** The reason in words, or the API's name for one this console does not know. */
export function refusalLabel(reason: string): string {
  return (REFUSAL_WORDS as Record<string, { label: string } | undefined>)[reason]?.label ?? reason;
}

/** Where a refusal came in, in words: `MLLP channel port 2575`, `HTTP port 5001`. */
export function listenerWords(listener: string, port: number | null): string {
  const at = port === null ? '' : ` port ${String(port)}`;
  if (listener.startsWith('channel:')) return `Channel listener${at}`;
  if (listener === 'http') return `HTTP${at}`;
  if (listener === 'https') return `HTTPS${at}`;
  if (listener === 'api') return `Management API${at}`;
  return `${listener}${at}`;
}
