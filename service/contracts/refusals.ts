/**
 * Refusals (issue 35): requests and messages Junction turned away before they became transactions, folded per
 * minute, sender address, listener, channel and reason, as `GET /refusals` answers them.
 */

/**
 * Why something was refused. `no_channel`: no channel matched the request (HTTP 404); `unauthenticated`: the client's
 * credentials or certificate were refused (401); `not_allowed`: the channel's access rules or allow list do not admit
 * the client or address (HTTP 401, MLLP AR); `throttled`: too many failed authentications from the address (429);
 * `too_large`: over a size limit (a body read for content matching, an MLLP or TCP message); `connection_limit`: over a
 * per-address, per-channel or process-wide connection cap; `timeout`: a connection closed by a deadline (a request
 * head, a frame, a TLS handshake, a silent sender); `malformed`: unreadable framing or a frame that is not HL7 v2;
 * `store_unavailable`: Junction was not accepting transactions (the data folder below its free-space floor).
 */
export const REFUSAL_KINDS = ['no_channel', 'unauthenticated', 'not_allowed', 'throttled', 'too_large', 'connection_limit', 'timeout', 'malformed', 'store_unavailable'] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** One minute's refusals of one kind from one address on one listener (and channel). */
export interface Refusal {
  _id: string;
  /** The minute they fell in (its start). */
  minute: string;
  firstAt: string;
  lastAt: string;
  count: number;
  reason: RefusalKind;
  /** Where they came in: `http`, `https`, `channel:<name>` (a tcp or tls channel's listener), `api`, an audit listener. */
  listener: string;
  port: number | null;
  /** The channel, when one was known (matched, or the channel's own listener). */
  channelID: string | null;
  channelName: string | null;
  address: string;
  /** The client, when it was identified before the refusal. */
  client: string | null;
  /** One refusal's own words (the first of the minute), such as the error message the sender was given. */
  detail: string;
}

/** A page of refusals, newest first, how many rows match the filters in all, and how many refusals those rows count. */
export interface RefusalPage {
  items: Refusal[];
  total: number;
  refused: number;
}
